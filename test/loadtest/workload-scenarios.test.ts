/**
 * The overwrite, update and query scenarios: what the processor sends passes the handlers'
 * validation, and npm run load runs the chosen operations in the lab's order with the create
 * phase's GovIds as the payload of those that need them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { queryPersons } from '../../lambda/shared/handlers';
import { validateChanges, validatePerson } from '../../lambda/shared/person';
import type { RunArtilleryOptions, RunArtilleryResult } from '../../loadtest/artillery-runner';
import {
  GOV_ID_TYPES,
  type LabContext,
  type LabHook,
  type LabRequestParams,
  pickGovIdType,
  setAddressChange,
  setOverwriteBody,
} from '../../loadtest/lab-processor.mjs';
import { DEFAULT_PHASES, orderPhases, runLoadPhases } from '../../loadtest/load-phases';
import { apiEvent } from '../support/events';

function run(hook: LabHook, vars: Record<string, unknown> = {}) {
  const params: LabRequestParams = {};
  const context: LabContext = { vars: { ...vars } };
  let error: Error | undefined;
  hook(params, context, {}, (e) => {
    error = e;
  });
  return { params, context, error };
}

describe('processor hooks of the new scenarios', () => {
  it('overwrite: a valid Person under the payload GovId, as JSON', () => {
    for (let i = 0; i < 50; i++) {
      const { params, error } = run(setOverwriteBody, { govId: `lab-x-${i}` });
      expect(error).toBeUndefined();
      expect(params.headers?.['content-type']).toBe('application/json');
      const body = JSON.parse(params.body ?? '');
      expect(body.GovId).toBe(`lab-x-${i}`);
      expect(validatePerson(body).ok).toBe(true);
    }
    expect(run(setOverwriteBody, {}).error?.message).toMatch(/no GovId in the payload/);
  });

  it('update: exactly {"Address": ...}, which the handler accepts', () => {
    for (let i = 0; i < 50; i++) {
      const body = JSON.parse(run(setAddressChange).params.body ?? '');
      expect(Object.keys(body)).toEqual(['Address']);
      expect(validateChanges(body).ok).toBe(true);
    }
  });

  it('query: every GovIdType the create phase draws from, URL-encoded for the query string', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { context } = run(pickGovIdType);
      const type = String(context.vars.govIdType);
      seen.add(type);
      expect(context.vars.govIdTypeParam).toBe(encodeURIComponent(type));
      // The URL the scenario builds, as API Gateway would hand it to the handler.
      const url = new URL(`http://x/person?govIdType=${context.vars.govIdTypeParam}&limit=10`);
      const event = apiEvent({
        method: 'GET',
        path: url.pathname,
        query: Object.fromEntries([...url.searchParams].map(([k, v]) => [k, [v]])),
      });
      expect(queryPersons.parse(event)).toEqual({ ok: true, value: { govIdType: type, limit: 10 } });
    }
    expect(seen).toEqual(new Set(GOV_ID_TYPES));
    const yml = readFileSync(new URL('../../loadtest/query-person.yml', import.meta.url), 'utf8');
    expect(yml).toContain(
      'url: "{{ basePath }}/person?govIdType={{ govIdTypeParam }}&limit={{ queryLimit }}"',
    );
  });
});

describe('the phases of npm run load', () => {
  it('runs create first and the rest in the lab order; refuses phases that need create without it', () => {
    expect(DEFAULT_PHASES).toEqual(['create', 'get']);
    expect(orderPhases(['query', 'update', 'create', 'overwrite', 'get'])).toEqual([
      'create',
      'get',
      'overwrite',
      'update',
      'query',
    ]);
    expect(orderPhases(['query'])).toEqual(['query']);
    expect(() => orderPhases(['overwrite', 'query'])).toThrow(
      /overwrite phase works on the Persons the create phase writes/,
    );
    expect(() => orderPhases(['get'])).toThrow(/add create/);
    // With Persons seeded first the reads pick among those: no create phase needed.
    expect(orderPhases(['get'], true)).toEqual(['get']);
  });

  const dir = mkdtempSync(join(tmpdir(), 'lab-workload-phases-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("passes the create phase's GovIds to get, overwrite and update, nothing to create and query", async () => {
    const calls: RunArtilleryOptions[] = [];
    const runner = async (o: RunArtilleryOptions): Promise<RunArtilleryResult> => {
      calls.push(o);
      return { exitCode: 1, wallMs: 1, outputTail: ['stub'] };
    };
    const { failed } = await runLoadPhases({
      outDir: dir,
      url: 'http://127.0.0.1:9/lab',
      basePath: (t) => `/${t}`,
      env: {},
      targets: ['dynamodb'],
      variants: ['on'],
      operations: ['query', 'update', 'overwrite', 'create'],
      durationS: 1,
      ratePerS: 1,
      runArtillery: runner,
      log: () => {},
      logError: () => {},
    });
    expect(failed).toHaveLength(4);
    const govIds = join(dir, 'govids-dynamodb-keepalive-on.csv');
    expect(calls.map((c) => [c.operation, c.payload])).toEqual([
      ['create', undefined],
      ['overwrite', govIds],
      ['update', govIds],
      ['query', undefined],
    ]);
    // Only the create phase records GovIds; the others get them as their payload.
    expect(calls.map((c) => c.env.LAB_GOVIDS_FILE)).toEqual([govIds, undefined, undefined, undefined]);
  });

  it('reads seeded Persons without a create phase, and marks each phase’s start after its seeding', async () => {
    const events: string[] = [];
    const runner = async (o: RunArtilleryOptions): Promise<RunArtilleryResult> => {
      events.push(`artillery ${o.operation}${o.outJson.includes('-seed') ? ' (seed)' : ''}`);
      return { exitCode: 1, wallMs: 1, outputTail: ['stub'] };
    };
    await runLoadPhases({
      outDir: dir,
      url: 'http://127.0.0.1:9/lab',
      basePath: (t) => `/${t}`,
      env: {},
      targets: ['dynamodb', 'redis'],
      variants: ['on'],
      operations: ['get'],
      durationS: 1,
      ratePerS: 1,
      seedRecords: 5,
      phaseStart: (target, _variant, phase) => {
        events.push(`start ${target} ${phase}`);
      },
      runArtillery: runner,
      log: () => {},
      logError: () => {},
    });
    expect(events).toEqual([
      'artillery create (seed)',
      'start dynamodb get',
      'artillery get',
      'artillery create (seed)',
      'start redis get',
      'artillery get',
    ]);
  });
});
