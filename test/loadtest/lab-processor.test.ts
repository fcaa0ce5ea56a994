import { describe, expect, it } from 'vitest';
import { validatePerson } from '../../lambda/shared/person';
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
