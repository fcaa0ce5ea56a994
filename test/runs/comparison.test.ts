/**
 * The comparison a run ends with: the fastest target for reads (get) and writes (create) by
 * client p50, each other target as a multiple of it, each target at its faster keep-alive variant.
 */
import { describe, expect, it } from 'vitest';
import { defaultPhaseS } from '../../loadtest/default-duration';
import {
  type ComparedRow,
  compareTargets,
  comparisonLines,
  formatComparisonTable,
} from '../../runs/comparison';

const row = (target: string, keepAlive: string, phase: string, p50: number, db = p50 / 2): ComparedRow => ({
  target,
  keepAlive,
  phase,
  requests: 40,
  errors: 0,
  latencyMs: { p50, p99: p50 * 3 },
  dbMs: { p50: db, p99: db * 3 },
});

const ROWS: ComparedRow[] = [
  row('dynamodb', 'on', 'create', 18),
  row('dynamodb', 'on', 'get', 16),
  row('dynamodb', 'off', 'create', 27),
  row('dynamodb', 'off', 'get', 36),
  row('qldb', 'on', 'create', 107),
  row('qldb', 'on', 'get', 60),
  row('qldb', 'off', 'create', 147),
  row('qldb', 'off', 'get', 138),
  row('redis', 'on', 'create', 9),
  // Redis without keep-alive is slower: its keep-alive on row is the one compared.
  row('redis', 'on', 'get', 4),
  row('redis', 'off', 'create', 15),
  row('redis', 'off', 'get', 20),
];

describe('compareTargets', () => {
  it('names the fastest target for reads and writes and each other target as a multiple of it', () => {
    const c = compareTargets(ROWS);
    expect(c?.statistic).toBe('client p50');
    expect(c?.reads?.ranking.map((r) => [r.target, r.keepAlive, r.ratio])).toEqual([
      ['redis', 'on', 1],
      ['dynamodb', 'on', 4],
      ['qldb', 'on', 15],
    ]);
    expect(c?.writes?.ranking.map((r) => [r.target, r.keepAlive, r.ratio])).toEqual([
      ['redis', 'on', 1],
      ['dynamodb', 'on', 2],
      ['qldb', 'on', 107 / 9],
    ]);
  });

  it('takes each target at its faster variant, whichever that is', () => {
    // A target whose keep-alive off row is the faster one (short run noise) is compared at off.
    const c = compareTargets([
      row('dynamodb', 'on', 'get', 30),
      row('dynamodb', 'off', 'get', 20),
      row('qldb', 'on', 'get', 40),
    ]);
    expect(c?.reads?.ranking[0]).toEqual({ target: 'dynamodb', keepAlive: 'off', clientP50Ms: 20, ratio: 1 });
    expect(c?.reads?.ranking[1]?.ratio).toBe(2);
    expect(c?.writes).toBeNull();
  });

  it('says it in one line per operation, naming the statistic and the variant', () => {
    const lines = comparisonLines(compareTargets(ROWS) as NonNullable<ReturnType<typeof compareTargets>>);
    expect(lines).toEqual([
      'Reads (get): fastest Redis (keep-alive on), 4.00 ms client p50; DynamoDB 4.0x (keep-alive on), QLDB 15.0x (keep-alive on) of it.',
      'Writes (create): fastest Redis (keep-alive on), 9.00 ms client p50; DynamoDB 2.0x (keep-alive on), QLDB 11.9x (keep-alive on) of it.',
    ]);
  });

  it('puts every target x keep-alive in one table with p50, p99, db p50 and the multiple of the fastest', () => {
    const table = formatComparisonTable(
      compareTargets(ROWS) as NonNullable<ReturnType<typeof compareTargets>>,
    );
    const lines = table.split('\n');
    expect(lines[0]).toMatch(
      /^target\s+keep-alive\s+get p50\s+get p99\s+get db p50\s+get vs fastest\s+create p50/,
    );
    expect(lines).toHaveLength(2 + 6);
    // Each target by its label, as every other output names it.
    const qldbOff = lines.find((l) => l.startsWith('QLDB') && l.includes(' off '));
    expect(qldbOff?.split(/\s+/)).toEqual([
      'QLDB',
      'off',
      '138.0',
      '414.0',
      '69.0',
      '34.5x',
      '147.0',
      '441.0',
      '16.3x',
    ]);
  });

  it('leaves out a phase that answered nothing, and gives no comparison when nothing can be compared', () => {
    const failed: ComparedRow = { ...row('qldb', 'on', 'get', 1), errors: 40, latencyMs: null };
    const c = compareTargets([row('dynamodb', 'on', 'get', 16), failed]);
    expect(c?.reads?.ranking.map((r) => r.target)).toEqual(['dynamodb']);
    expect(comparisonLines(c as NonNullable<typeof c>)[0]).toContain('no other target ran');
    expect(compareTargets([row('dynamodb', 'on', 'update', 16)])).toBeNull();
    expect(compareTargets([])).toBeNull();
  });

  it('compares nothing when a target x variant x phase has several rows (memory sizes, parallel levels)', () => {
    expect(compareTargets([row('dynamodb', 'on', 'get', 16), row('dynamodb', 'on', 'get', 30)])).toBeNull();
  });
});

describe('defaultPhaseS', () => {
  it('shares the default load among the phases: 4 targets x 2 variants x 2 phases get 3 s each', () => {
    expect(defaultPhaseS(16)).toBe(3);
    expect(defaultPhaseS(12)).toBe(4);
    expect(defaultPhaseS(8)).toBe(6);
    // One target gets 12 s phases, fewer phases at most 20 s; many phases never go below 3 s.
    expect(defaultPhaseS(4)).toBe(12);
    expect(defaultPhaseS(2)).toBe(20);
    expect(defaultPhaseS(40)).toBe(3);
    expect(defaultPhaseS(0)).toBe(20);
  });
});
