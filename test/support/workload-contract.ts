/**
 * The overwrite, update and query operations as every target must answer them, written once:
 * each target's test file runs `describeWorkloads` against its real engine (or, for QLDB, the
 * ledger mock) with the requests it expects each call to send.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isTiming } from '../../core/timing.mjs';
import {
  type ApiHandler,
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makeQueryHandler,
  makeUpdateHandler,
} from '../../lambda/shared/handlers';
import type { PersonStore } from '../../lambda/shared/person-store';
import {
  bodyOf,
  createEvent,
  getEvent,
  overwriteEvent,
  queryEvent,
  samplePerson,
  updateEvent,
} from './events';

/** Requests one warm call sends (keep-alive on, connection or session already open). */
export interface WarmRequests {
  readonly overwrite: number;
  readonly overwriteMissing: number;
  readonly update: number;
  readonly updateMissing: number;
  /** A query whose result needs no paging. */
  readonly query: number;
}

export interface WorkloadTarget {
  /** Target name, for function names: `${name}-overwrite`. */
  readonly name: string;
  /** A store as one execution environment has it, keep-alive on. */
  store(): PersonStore;
  readonly warm: WarmRequests;
}

interface Handlers {
  readonly create: ApiHandler;
  readonly get: ApiHandler;
  readonly overwrite: ApiHandler;
  readonly update: ApiHandler;
  readonly query: ApiHandler;
}

const TIMING_KEYS = [
  'coldStart',
  'concurrency',
  'dbMs',
  'dbRequests',
  'dbRoundTrips',
  'environment',
  'initType',
  'newConnection',
];

/** A GovIdType no other test (or earlier run against a kept engine) has used. */
const freshType = (label: string) => `T-${label}-${process.hrtime.bigint().toString(36)}`;

export function describeWorkloads(target: () => WorkloadTarget): void {
  let t: WorkloadTarget;
  let h: Handlers;
  let store: PersonStore;
  const setup = () => {
    t = target();
    store = t.store();
    h = {
      create: makeCreateHandler(store, `${t.name}-create`),
      get: makeGetHandler(store, `${t.name}-get`),
      overwrite: makeOverwriteHandler(store, `${t.name}-overwrite`),
      update: makeUpdateHandler(store, `${t.name}-update`),
      query: makeQueryHandler(store, `${t.name}-query`),
    };
  };
  /** Creates Persons one by one, a few ms apart, so creation times order them. */
  const createAll = async (ids: readonly string[], govIdType: string) => {
    for (const id of ids) {
      const r = await h.create(createEvent({ ...samplePerson(id), GovIdType: govIdType }));
      expect(r.statusCode, id).toBe(201);
      await sleep(3);
    }
  };
  const queryIds = async (params: Record<string, string>) => {
    const r = await h.query(queryEvent(params));
    expect(r.statusCode, JSON.stringify(params)).toBe(200);
    return (bodyOf(r).persons ?? []).map((p) => p.GovId);
  };
  const unique = (label: string) => `${label}-${process.hrtime.bigint().toString(36)}`;

  describe('overwrite (PUT /person/{govId})', () => {
    it('200 with the new Person, which replaces every field (a field left out is gone); 404 when absent', async () => {
      setup();
      const id = unique('OW');
      await createAll([id], 'Passport');
      const next = {
        GovId: id,
        FirstName: 'Augusta',
        LastName: 'King',
        DOB: '1816-01-01',
        GovIdType: 'Driver License',
      };
      await h.get(getEvent(id)); // warms the connection: the overwrite below is a warm call
      const r = await h.overwrite(overwriteEvent(id, next));
      expect(r.statusCode).toBe(200);
      expect(r.headers).toEqual({ 'content-type': 'application/json' });
      const body = bodyOf(r);
      expect(body.person).toEqual(next);
      // Optional keys: billed when the target's client records billed units (QLDB's records none),
      // dbCommands when it counts its calls by command name (QLDB's SendCommand).
      expect(
        Object.keys(body.timing)
          .filter((k) => k !== 'billed' && k !== 'dbCommands')
          .sort(),
      ).toEqual(TIMING_KEYS);
      expect(isTiming(body.timing)).toBe(true);
      expect(body.timing).toMatchObject({
        newConnection: false,
        dbRequests: t.warm.overwrite,
        coldStart: false,
        // Alone in its environment, as every call on standard Lambda is.
        concurrency: 1,
      });
      expect(body.timing.dbMs).toBeGreaterThan(0);
      // Address was in the old record and not in the new one: it is gone, not kept.
      expect(bodyOf(await h.get(getEvent(id))).person).toEqual(next);

      const missing = await h.overwrite(overwriteEvent(`${id}-none`, { ...next, GovId: `${id}-none` }));
      expect(missing.statusCode).toBe(404);
      expect(bodyOf(missing)).toMatchObject({ field: 'govId', error: expect.stringContaining(`${id}-none`) });
      expect(bodyOf(missing).timing.dbRequests).toBe(t.warm.overwriteMissing);
      // A 404 creates nothing.
      expect((await h.get(getEvent(`${id}-none`))).statusCode).toBe(404);
    });

    it('400 for a GovId that differs from the path, unknown or internal fields and bad values, changing nothing', async () => {
      setup();
      const id = unique('OWBAD');
      await createAll([id], 'Passport');
      const p = samplePerson(id);
      const before = store.requestsSent();
      const cases: [string | undefined, unknown, string | undefined][] = [
        [id, { ...p, GovId: `${id}-other` }, 'GovId'],
        [id, { ...p, CreatedAt: 1 }, 'CreatedAt'],
        [id, { ...p, Role: 'admin' }, 'Role'],
        [id, { ...p, FirstName: '' }, 'FirstName'],
        [id, { ...p, DOB: '2001-02-29' }, 'DOB'],
        // Year 0000: JavaScript parses it, PostgreSQL (DSQL) has no year zero; every target refuses it.
        [id, { ...p, DOB: '0000-01-01' }, 'DOB'],
        [id, { ...p, Address: 'x'.repeat(201) }, 'Address'],
        [id, { FirstName: 'only' }, 'GovId'],
        [id, '{"GovId": ', undefined],
        [id, '', undefined],
        [id, '[]', undefined],
        [undefined, p, 'govId'],
        ['a/b', { ...p, GovId: 'a/b' }, 'govId'],
        ['x'.repeat(65), p, 'govId'],
      ];
      for (const [path, body, field] of cases) {
        const r = await h.overwrite(overwriteEvent(path, body));
        expect(r.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(bodyOf(r).field, JSON.stringify(body).slice(0, 80)).toBe(field);
        expect(bodyOf(r).timing).toMatchObject({ dbMs: 0, dbRequests: 0, newConnection: false });
      }
      expect(store.requestsSent()).toBe(before);
      expect(bodyOf(await h.get(getEvent(id))).person).toEqual(p);
    });
  });

  describe('update (PATCH /person/{govId})', () => {
    it('200 with the whole updated Person, only Address changed; 404 when absent', async () => {
      setup();
      const id = unique('UP');
      await createAll([id], 'SSN');
      await h.get(getEvent(id));
      const r = await h.update(updateEvent(id, { Address: '1 New Street, Dublin' }));
      expect(r.statusCode).toBe(200);
      const expected = { ...samplePerson(id), GovIdType: 'SSN', Address: '1 New Street, Dublin' };
      expect(bodyOf(r).person).toEqual(expected);
      expect(bodyOf(r).timing).toMatchObject({ newConnection: false, dbRequests: t.warm.update });
      expect(bodyOf(await h.get(getEvent(id))).person).toEqual(expected);
      // An empty Address is allowed, as create allows it.
      const empty = await h.update(updateEvent(id, { Address: '' }));
      expect(empty.statusCode).toBe(200);
      expect(bodyOf(empty).person?.Address).toBe('');

      const missing = await h.update(updateEvent(`${id}-none`, { Address: 'x' }));
      expect(missing.statusCode).toBe(404);
      expect(bodyOf(missing)).toMatchObject({ field: 'govId', error: expect.stringContaining(`${id}-none`) });
      expect(bodyOf(missing).timing.dbRequests).toBe(t.warm.updateMissing);
      expect((await h.get(getEvent(`${id}-none`))).statusCode).toBe(404);
    });

    it('400 for unknown fields, a missing or bad Address and bad GovIds, changing nothing', async () => {
      setup();
      const id = unique('UPBAD');
      await createAll([id], 'SSN');
      const before = store.requestsSent();
      const cases: [string | undefined, unknown, string | undefined][] = [
        [id, { Address: 'x', FirstName: 'Mallory' }, 'FirstName'],
        [id, { ...samplePerson(id) }, 'GovId'],
        [id, { Address: 'x', CreatedAt: 0 }, 'CreatedAt'],
        [id, {}, 'Address'],
        [id, { Address: 42 }, 'Address'],
        [id, { Address: null }, 'Address'],
        [id, { Address: 'x'.repeat(201) }, 'Address'],
        [id, { Address: 'line\nbreak' }, 'Address'],
        [id, '{', undefined],
        [id, 'null', undefined],
        [id, '', undefined],
        [undefined, { Address: 'x' }, 'govId'],
        ['ünï', { Address: 'x' }, 'govId'],
      ];
      for (const [path, body, field] of cases) {
        const r = await h.update(updateEvent(path, body));
        expect(r.statusCode, JSON.stringify(body)).toBe(400);
        expect(bodyOf(r).field, JSON.stringify(body)).toBe(field);
        expect(bodyOf(r).timing).toMatchObject({ dbMs: 0, dbRequests: 0 });
      }
      expect(store.requestsSent()).toBe(before);
      expect(bodyOf(await h.get(getEvent(id))).person).toEqual({ ...samplePerson(id), GovIdType: 'SSN' });
    });
  });

  describe('query (GET /person?govIdType=X&limit=N)', () => {
    it('the newest `limit` (default 10) of the type, newest first, nothing of other types, no internal fields', async () => {
      setup();
      const type = freshType('Q');
      const ids = Array.from({ length: 12 }, (_, i) => unique(`Q${String(i).padStart(2, '0')}`));
      await createAll(ids, type);
      await createAll([unique('QOTHER')], `${type}-other`);
      const newestFirst = [...ids].reverse();

      const r = await h.query(queryEvent({ govIdType: type }));
      expect(r.statusCode).toBe(200);
      const body = bodyOf(r);
      expect(Object.keys(body).sort()).toEqual(['persons', 'timing']);
      expect(body.persons?.map((p) => p.GovId)).toEqual(newestFirst.slice(0, 10));
      // Exactly the Person fields, as created: CreatedAt stays inside the store.
      expect(body.persons?.[0]).toEqual({ ...samplePerson(ids[11]), GovIdType: type });
      expect(body.timing).toMatchObject({ newConnection: false, dbRequests: t.warm.query });

      expect(await queryIds({ govIdType: type, limit: '3' })).toEqual(newestFirst.slice(0, 3));
      expect(await queryIds({ govIdType: type, limit: '50' })).toEqual(newestFirst);
      expect(await queryIds({ govIdType: type, limit: '1' })).toEqual(newestFirst.slice(0, 1));
      expect(await queryIds({ govIdType: freshType('NONE') })).toEqual([]);
    });

    it('follows overwrites: a re-created Person is the newest, one moved to another type leaves its old list; updates keep the order', async () => {
      setup();
      const type = freshType('QO');
      const moved = freshType('QM');
      const ids = Array.from({ length: 4 }, (_, i) => unique(`QO${i}`));
      await createAll(ids, type);
      expect(await queryIds({ govIdType: type })).toEqual([...ids].reverse());

      // The oldest, overwritten under the same type, is now the newest.
      const r = await h.overwrite(overwriteEvent(ids[0], { ...samplePerson(ids[0]), GovIdType: type }));
      expect(r.statusCode).toBe(200);
      expect(await queryIds({ govIdType: type })).toEqual([ids[0], ids[3], ids[2], ids[1]]);

      // An update changes the Address, not the creation time.
      expect((await h.update(updateEvent(ids[1], { Address: 'Elsewhere' }))).statusCode).toBe(200);
      const listed = await h.query(queryEvent({ govIdType: type }));
      expect(bodyOf(listed).persons?.map((p) => p.GovId)).toEqual([ids[0], ids[3], ids[2], ids[1]]);
      expect(bodyOf(listed).persons?.[3].Address).toBe('Elsewhere');

      // Moved to another type: listed there, gone from here.
      await sleep(3);
      const m = await h.overwrite(overwriteEvent(ids[2], { ...samplePerson(ids[2]), GovIdType: moved }));
      expect(m.statusCode).toBe(200);
      expect(await queryIds({ govIdType: type })).toEqual([ids[0], ids[3], ids[1]]);
      expect(await queryIds({ govIdType: moved })).toEqual([ids[2]]);
    });

    it('400 for a missing, empty, long or control-character govIdType, a limit outside 1..50, unknown or repeated parameters', async () => {
      setup();
      const before = store.requestsSent();
      const cases: [Record<string, string | string[]> | null, string][] = [
        [null, 'govIdType'],
        [{ limit: '5' }, 'govIdType'],
        [{ govIdType: '' }, 'govIdType'],
        [{ govIdType: '   ' }, 'govIdType'],
        [{ govIdType: 'x'.repeat(51) }, 'govIdType'],
        [{ govIdType: 'Pass\u0000port' }, 'govIdType'],
        [{ govIdType: 'Passport', limit: '0' }, 'limit'],
        [{ govIdType: 'Passport', limit: '51' }, 'limit'],
        [{ govIdType: 'Passport', limit: '-1' }, 'limit'],
        [{ govIdType: 'Passport', limit: '' }, 'limit'],
        [{ govIdType: 'Passport', limit: 'ten' }, 'limit'],
        [{ govIdType: 'Passport', limit: '1.5' }, 'limit'],
        [{ govIdType: 'Passport', limit: '1e1' }, 'limit'],
        [{ govIdType: 'Passport', limit: '0x10' }, 'limit'],
        [{ govIdType: 'Passport', limit: '9999999999' }, 'limit'],
        [{ govIdType: ['Passport', 'SSN'] }, 'govIdType'],
        [{ govIdType: 'Passport', limit: ['1', '2'] }, 'limit'],
        [{ govIdType: 'Passport', offset: '10' }, 'offset'],
        [{ govIdType: 'Passport', __proto__x: '1' }, '__proto__x'],
      ];
      for (const [params, field] of cases) {
        const r = await h.query(queryEvent(params));
        expect(r.statusCode, JSON.stringify(params)).toBe(400);
        expect(bodyOf(r).field, JSON.stringify(params)).toBe(field);
        expect(bodyOf(r).timing).toMatchObject({ dbMs: 0, dbRequests: 0, newConnection: false });
      }
      expect(store.requestsSent()).toBe(before);
      // At the limits: accepted.
      expect((await h.query(queryEvent({ govIdType: 'x'.repeat(50), limit: '50' }))).statusCode).toBe(200);
      expect((await h.query(queryEvent({ govIdType: 'Driver License', limit: '01' }))).statusCode).toBe(200);
    });
  });
}
