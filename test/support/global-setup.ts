import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../core/paths';
import { ensureSynth } from '../../local/assembly/ensure-synth';
import { localOutdir, localSynthContext } from '../../local/lab';

/** Synthesizes once for every test that starts the local lab with the default flags, so they never race to write it. */
export default async function setup(): Promise<void> {
  // The redis tests run a real redis-server: install it once (Debian package) or say how.
  execFileSync('bash', [join(PROJECT_ROOT, 'scripts/ensure-redis.sh')], { stdio: 'inherit' });
  const context = localSynthContext();
  await ensureSynth(localOutdir(context), context, (line) => console.log(line));
}
