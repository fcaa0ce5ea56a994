import { afterEach, describe, expect, it, vi } from 'vitest';
import { validatePerson, validatePersons } from '../../lambda/shared/person';
import { buildPerson, GOV_ID_TYPES, govIdPrefix, variantOf } from '../../loadtest/lab-processor.mjs';

describe('buildPerson', () => {
  it('builds Persons the API accepts, each with its own GovId', () => {
    const people = Array.from({ length: 500 }, () => buildPerson('p-'));
    for (const p of people) {
      const v = validatePerson(p);
      expect(v.ok, JSON.stringify({ p, v })).toBe(true);
      expect(p.GovId).toMatch(/^p-[A-Za-z0-9]{16}$/);
      expect(GOV_ID_TYPES).toContain(p.GovIdType);
    }
    expect(new Set(people.map((p) => p.GovId)).size).toBe(people.length);
    expect(new Set(people.map((p) => p.GovIdType))).toEqual(new Set(GOV_ID_TYPES));
  });

  it('gives adults born in the last 90 years', () => {
    const year = new Date().getUTCFullYear();
    for (let i = 0; i < 100; i += 1) {
      const born = Number(buildPerson().DOB.slice(0, 4));
      expect(born).toBeGreaterThanOrEqual(year - 91);
      expect(born).toBeLessThanOrEqual(year - 18);
    }
  });
});

describe('govIdPrefix', () => {
  it('defaults to a per-run prefix and refuses one that breaks the GovId pattern or length', () => {
    expect(govIdPrefix(undefined)).toMatch(/^lab-[a-z0-9]+-$/);
    expect(govIdPrefix('run_7-')).toBe('run_7-');
    expect(() => govIdPrefix('has space')).toThrow('LAB_GOVID_PREFIX');
    expect(() => govIdPrefix('x'.repeat(49))).toThrow('at most 48');
  });
});

describe('variantOf', () => {
  it('prefers the label, then the base path, then "default"', () => {
    expect(variantOf('/dynamodb/keepalive-off', 'on')).toBe('on');
    expect(variantOf('/dynamodb/keepalive-off', '')).toBe('off');
    expect(variantOf('/qldb/keepalive-on/', '')).toBe('on');
    expect(variantOf('/dynamodb', '')).toBe('default');
    expect(variantOf(undefined, '')).toBe('default');
  });
});

describe('setPersonsBody (put10)', () => {
  it('posts ten fresh Persons the API accepts as a put10 body', async () => {
    const { setPersonsBody } = await import('../../loadtest/lab-processor.mjs');
    const params: { body?: string; headers?: Record<string, string> } = {};
    setPersonsBody(params, { vars: {} }, {}, () => {});
    const parsed = JSON.parse(params.body ?? '');
    expect(validatePersons(parsed).ok).toBe(true);
    expect(params.headers?.['content-type']).toBe('application/json');
  });
});

describe('random picks among seeded GovIds (the labPickSeed payload)', () => {
  const seeded = Array.from({ length: 50 }, (_, i) => ({ govId: `s-${i}` }));
  afterEach(() => vi.resetModules());

  /** A fresh processor (its generator starts at the first pick), then `n` requests' GovIds. */
  async function picks(seed: string, n: number): Promise<string[]> {
    vi.resetModules();
    const { nextGovId } = await import('../../loadtest/lab-processor.mjs');
    // What Artillery gives a virtual user from the payload files: a row, the whole list, the seed.
    const context = {
      vars: { govId: 'from-payload', labGovIds: seeded, labPickSeed: seed, closedLoopS: 0 } as Record<
        string,
        unknown
      >,
    };
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      nextGovId({}, context, {}, () => {});
      out.push(String(context.vars.govId));
    }
    return out;
  }

  it('every request, the first too, names a seeded GovId; the same seed picks the same ones', async () => {
    const a = await picks('3', 400);
    expect(a.every((g) => /^s-\d+$/.test(g))).toBe(true);
    expect(await picks('3', 400)).toEqual(a);
    expect(await picks('4', 400)).not.toEqual(a);
  });

  it('picks uniformly: every seeded GovId comes up, none far more often than the others', async () => {
    const counts = new Map<string, number>();
    for (const g of await picks('1', 5000)) counts.set(g, (counts.get(g) ?? 0) + 1);
    expect(counts.size).toBe(50);
    // 100 expected each; a fair generator stays well inside 50..160 (more than 5 sigma).
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(50);
      expect(n).toBeLessThan(160);
    }
  });

  it('fails the request on a seed that is not a whole number', async () => {
    const { nextGovId } = await import('../../loadtest/lab-processor.mjs');
    let error: Error | undefined;
    nextGovId({}, { vars: { labGovIds: seeded, labPickSeed: 'abc' } }, {}, (e) => {
      error = e;
    });
    expect(error?.message).toContain('labPickSeed');
  });
});
