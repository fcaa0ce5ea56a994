/**
 * The news site's workload (news-top10) as every target that serves it must answer, written
 * once: view (POST /person/{govId}/view) counts a read of a story, top10 (GET /top10) lists the
 * ten most viewed. Each target's test file runs `describeTopStories` against its real engine.
 * The top 10 is one list per database, shared by every test against it: the cases here give
 * their stories counts above any other test's, so the ten they read back are theirs.
 */
import { describe, expect, it } from 'vitest';
import { isTiming } from '../../core/timing.mjs';
import {
  type ApiHandler,
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makeTop10Handler,
  makeUpdateHandler,
  makeViewHandler,
} from '../../lambda/shared/handlers';
import { type PersonStore, TOP_STORIES } from '../../lambda/shared/person-store';
import {
  bodyOf,
  createEvent,
  getEvent,
  overwriteEvent,
  samplePerson,
  top10Event,
  updateEvent,
  viewEvent,
} from './events';

export interface TopStoriesTarget {
  /** Target name, for function names: `${name}-view`. */
  readonly name: string;
  /** A store as one execution environment has it, keep-alive on. */
  store(): PersonStore;
  /** What one warm call sends (requests or protocol messages, as the target's timing counts). */
  readonly warm: { readonly view: number; readonly viewMissing: number; readonly top10: number };
}

const unique = (label: string) => `${label}-${process.hrtime.bigint().toString(36)}`;

export function describeTopStories(target: () => TopStoriesTarget): void {
  let t: TopStoriesTarget;
  let h: Record<'create' | 'get' | 'overwrite' | 'update' | 'view' | 'top10', ApiHandler>;
  let store: PersonStore;
  const setup = () => {
    t = target();
    store = t.store();
    h = {
      create: makeCreateHandler(store, `${t.name}-create`),
      get: makeGetHandler(store, `${t.name}-get`),
      overwrite: makeOverwriteHandler(store, `${t.name}-overwrite`),
      update: makeUpdateHandler(store, `${t.name}-update`),
      view: makeViewHandler(store, `${t.name}-view`),
      top10: makeTop10Handler(store, `${t.name}-top10`),
    };
  };
  const create = async (id: string) => {
    const r = await h.create(createEvent(samplePerson(id)));
    expect(r.statusCode, id).toBe(201);
  };
  const view = async (id: string) => {
    const r = await h.view(viewEvent(id));
    expect(r.statusCode, id).toBe(200);
    return bodyOf(r);
  };
  const top10 = async () => {
    const r = await h.top10(top10Event());
    expect(r.statusCode).toBe(200);
    return bodyOf(r).stories ?? [];
  };

  describe('view and top10 (the news site)', () => {
    it('view: 200 with the story and its count, one more each read; 404 for none, counting nothing', async () => {
      setup();
      const id = unique('VW');
      await create(id);
      await h.get(getEvent(id)); // warms the connection: the views below are warm calls
      const first = await view(id);
      expect(first.person).toEqual(samplePerson(id));
      expect(first.views).toBe(1);
      expect(isTiming(first.timing)).toBe(true);
      expect(first.timing).toMatchObject({ newConnection: false, dbRequests: t.warm.view, coldStart: false });
      expect(first.timing.dbMs).toBeGreaterThan(0);
      expect((await view(id)).views).toBe(2);
      // get reads the record only: the count is the story's, not a Person field.
      expect(bodyOf(await h.get(getEvent(id))).person).toEqual(samplePerson(id));

      const missing = await h.view(viewEvent(`${id}-none`));
      expect(missing.statusCode).toBe(404);
      expect(bodyOf(missing)).toMatchObject({ field: 'govId', error: expect.stringContaining(`${id}-none`) });
      expect(bodyOf(missing).timing.dbRequests).toBe(t.warm.viewMissing);
      // Nothing was made or counted for it.
      expect((await h.get(getEvent(`${id}-none`))).statusCode).toBe(404);
      expect((await top10()).map((s) => s.person.GovId)).not.toContain(`${id}-none`);
    });

    it('400 for a bad GovId (view) or any parameter (top10), before any database call', async () => {
      setup();
      const before = store.requestsSent();
      for (const govId of [undefined, 'a/b', 'x'.repeat(65), '']) {
        const r = await h.view(viewEvent(govId));
        expect(r.statusCode, String(govId)).toBe(400);
        expect(bodyOf(r).field).toBe('govId');
        expect(bodyOf(r).timing).toMatchObject({ dbMs: 0, dbRequests: 0, newConnection: false });
      }
      const r = await h.top10(top10Event({ limit: '5' }));
      expect(r.statusCode).toBe(400);
      expect(bodyOf(r)).toMatchObject({ field: 'limit', error: expect.stringContaining('limit') });
      expect(store.requestsSent()).toBe(before);
    });

    it('top10: the ten most viewed, most first, with their counts; overwrite starts a count again, update keeps it', async () => {
      setup();
      // 12 stories viewed 21..32 times (above any other case's counts), so the top 10 is theirs.
      const ids = Array.from({ length: 12 }, (_, i) => unique(`TOP${i}`));
      for (const id of ids) await create(id);
      await Promise.all(
        ids.map(async (id, i) => {
          for (let n = 0; n < 21 + i; n++) await view(id);
        }),
      );
      const r = await h.top10(top10Event());
      expect(r.statusCode).toBe(200);
      expect(bodyOf(r).timing).toMatchObject({ newConnection: false, dbRequests: t.warm.top10 });
      const stories = bodyOf(r).stories ?? [];
      expect(stories).toHaveLength(TOP_STORIES);
      expect(stories.map((s) => s.person.GovId)).toEqual(ids.slice(2).reverse());
      expect(stories.map((s) => s.views)).toEqual([32, 31, 30, 29, 28, 27, 26, 25, 24, 23]);
      expect(stories[0].person).toEqual(samplePerson(ids[11]));

      // An update changes the record and keeps its count: the top story stays first, updated.
      const up = await h.update(updateEvent(ids[11], { Address: 'Fleet Street' }));
      expect(up.statusCode).toBe(200);
      const afterUpdate = await top10();
      expect(afterUpdate[0]).toEqual({
        person: { ...samplePerson(ids[11]), Address: 'Fleet Street' },
        views: 32,
      });
      // An overwrite is a re-creation: the story leaves the top 10, and its next view is its first.
      const ow = await h.overwrite(overwriteEvent(ids[11], samplePerson(ids[11])));
      expect(ow.statusCode).toBe(200);
      const afterOverwrite = await top10();
      expect(afterOverwrite.map((s) => s.person.GovId)).not.toContain(ids[11]);
      expect(afterOverwrite[0]).toMatchObject({ person: { GovId: ids[10] }, views: 31 });
      expect((await view(ids[11])).views).toBe(1);
    });
  });
}
