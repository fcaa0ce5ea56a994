/**
 * The QLDB engine restarted without --data: the journal in the lab's run data replays the
 * ledger made through the control plane, its tables and indexes and every document, so
 * requests succeed at once and what was written before the restart is still there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningLab, startLab } from '../../local/lab';
import { person, rawRequest } from '../support/lab-http';

const BASE = '/qldb/keepalive-on/person';

describe('QLDB restarted without --data', () => {
  let lab: RunningLab;
  const lines: string[] = [];
  beforeAll(async () => {
    lab = await startLab({ port: 0, context: { targets: 'qldb' }, log: (l) => lines.push(l) });
  }, 300_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('replays its journal: the ledger, tables and documents are kept, creates and reads succeed', async () => {
    const before = await rawRequest(lab, 'POST', BASE, JSON.stringify(person('QR-BEFORE-1')));
    expect(before.status, before.text).toBe(201);
    const oldPid = lab.targets.get('qldb')?.database.pid;

    const logged = lines.length;
    await lab.restartEngine('qldb');
    // The journal held it all: nothing was made again.
    expect(lines.slice(logged).join('\n')).toMatch(
      /\[qldb\] ready at .* \(pid \d+, [1-9]\d* commits replayed\)/,
    );
    expect(lines.slice(logged).join('\n')).not.toMatch(/created by the custom resource bundle/);
    expect(lab.targets.get('qldb')?.database.pid).not.toBe(oldPid);

    const created = await rawRequest(lab, 'POST', BASE, JSON.stringify(person('QR-AFTER-1')));
    expect(created.status, created.text).toBe(201);
    const read = await rawRequest(lab, 'GET', `${BASE}/QR-AFTER-1`);
    expect(read.status, read.text).toBe(200);
    expect((read.json?.person as { GovId?: string } | undefined)?.GovId).toBe('QR-AFTER-1');
    const kept = await rawRequest(lab, 'GET', `${BASE}/QR-BEFORE-1`);
    expect(kept.status, kept.text).toBe(200);
    expect((kept.json?.person as { GovId?: string } | undefined)?.GovId).toBe('QR-BEFORE-1');
  }, 180_000);
});
