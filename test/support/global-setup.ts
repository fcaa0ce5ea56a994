import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../core/paths';
import { ensureSynth } from '../../local/assembly/ensure-synth';
import { localSynthContext } from '../../local/lab';

/** Synthesizes cdk.out once for every test that starts the local lab, so they never race to write it. */
export default async function setup(): Promise<void> {
  // The redis tests run a real redis-server: install it once (Debian package) or say how.
  execFileSync('bash', [join(PROJECT_ROOT, 'scripts/ensure-redis.sh')], { stdio: 'inherit' });
  await ensureSynth(join(PROJECT_ROOT, 'cdk.out'), localSynthContext(), (line) => console.log(line));
}
