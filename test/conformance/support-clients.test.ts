/**
 * The conformance suite's client runner: a client's exit code is a result, a client the bound
 * had to kill is not (a case expecting a refusal must not pass on a hang).
 */
import { describe, expect, it } from 'vitest';
import { runClient } from './support/clients';

describe('runClient', () => {
  it('resolves with the exit code and output of a client that ends, zero or not', async () => {
    const r = await runClient(process.execPath, ['-e', 'process.stderr.write("refused"); process.exit(3)']);
    expect(r).toEqual({ code: 3, stdout: '', stderr: 'refused' });
    const ok = await runClient(
      process.execPath,
      ['-e', 'process.stdout.write(require("fs").readFileSync(0))'],
      {
        input: 'echoed',
      },
    );
    expect(ok).toEqual({ code: 0, stdout: 'echoed', stderr: '' });
  });

  it('rejects, naming the bound, when the client has to be killed', async () => {
    await expect(
      runClient(process.execPath, ['-e', 'process.stderr.write("waiting"); setInterval(() => {}, 1000)'], {
        timeoutMs: 3000,
      }),
    ).rejects.toThrow(/did not finish within 3000 ms/);
  });

  it('names the install command when the client is missing', async () => {
    await expect(runClient('no-such-client-for-the-lab', [])).rejects.toThrow(
      /no-such-client-for-the-lab is not installed; run: bash scripts\/ensure-conformance-clients.sh/,
    );
  });
});
