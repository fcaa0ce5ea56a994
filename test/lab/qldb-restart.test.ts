/**
 * The QLDB engine restarted without --data (issue 21): the in-memory ledger comes back empty,
 * and without its tables every request failed (503). The lab now runs the tables custom
 * resource again after such a restart, as at start: requests succeed, and what was written
 * before the restart is gone, as a ledger made afresh would have it.
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

  it('gets its tables again from the custom resource: creates and reads succeed, earlier data is gone', async () => {
    const before = await rawRequest(lab, 'POST', BASE, JSON.stringify(person('QR-BEFORE-1')));
    expect(before.status, before.text).toBe(201);
    const oldPid = lab.targets.get('qldb')?.database.pid;

    const logged = lines.length;
    await lab.restartEngine('qldb');
    expect(lab.targets.get('qldb')?.database.pid).not.toBe(oldPid);

    const created = await rawRequest(lab, 'POST', BASE, JSON.stringify(person('QR-AFTER-1')));
    expect(created.status, created.text).toBe(201);
    const read = await rawRequest(lab, 'GET', `${BASE}/QR-AFTER-1`);
    expect(read.status, read.text).toBe(200);
    expect((read.json?.person as { GovId?: string } | undefined)?.GovId).toBe('QR-AFTER-1');
    // Made again by the custom resource bundle, as at start (before: every request answered 503).
    expect(lines.slice(logged).join('\n')).toMatch(
      /QLDB tables and indexes created by the custom resource bundle/,
    );
    // In memory: the restart lost what was written, not the tables.
    const lost = await rawRequest(lab, 'GET', `${BASE}/QR-BEFORE-1`);
    expect(lost.status, lost.text).toBe(404);
  }, 180_000);
});
