/**
 * An engine that dies on its own while the lab runs (restartDeadEngines, as `npm run local`
 * runs it): noticed within the watch's interval, said in a `warning:` line naming what was lost,
 * started again on the same port with its tables made again, and the API serves again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningLab, startLab } from '../../local/lab';
import { person, rawRequest, scanTables } from '../support/lab-http';

const BASE = '/dynamodb/keepalive-on/person';

describe('an engine that dies is noticed, reported and restarted', () => {
  let lab: RunningLab;
  const lines: string[] = [];
  beforeAll(async () => {
    lab = await startLab({ port: 0, restartDeadEngines: true, log: (l) => lines.push(l) });
  }, 240_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('says it died and what was lost, restarts it on the same port, and serves again', async () => {
    const created = await rawRequest(lab, 'POST', BASE, JSON.stringify(person('R-1')));
    expect(created.status).toBe(201);
    const pid = lab.engine.pid;
    const port = lab.engine.upstreamPort;
    process.kill(pid, 'SIGKILL');
    // Noticed within a second (250 ms watch); 3x slack for a loaded machine, then the restart.
    const deadline = Date.now() + 15_000;
    while (!lines.some((l) => l.includes('engine restarted')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(lines.filter((l) => l.includes(`(pid ${pid}) died`))).toEqual([
      `warning: DynamoDB's engine (pid ${pid}) died; starting it again on the same port`,
    ]);
    const restarted = lines.find((l) => l.includes('engine restarted')) ?? '';
    expect(restarted).toMatch(/what it held in memory is lost: .*PersonTable.* made again, empty$/);
    expect(lab.engine.pid).not.toBe(pid);
    expect(lab.engine.upstreamPort).toBe(port);
    // The table is there again, empty: the item before the death is gone, as the line says.
    expect(await scanTables(lab)).toEqual([]);
    const again = await rawRequest(lab, 'POST', BASE, JSON.stringify(person('R-2')));
    expect(again.status).toBe(201);
    expect((await rawRequest(lab, 'GET', `${BASE}/R-2`)).status).toBe(200);
  }, 60_000);
});
