/**
 * QLDB's commands per call by name: the timing block's dbCommands, a call's share of a
 * cumulative count, and a phase's distinct breakdowns, most frequent first.
 */
import { describe, expect, it } from 'vitest';
import type { Timing } from '../../core/timing.mjs';
import { isTiming } from '../../core/timing.mjs';
import { commandsBetween } from '../../lambda/shared/timing-meter';
import { formatBreakdown, summarizeCommands } from '../../runs/db-commands';
import { commandNames } from '../../targets/qldb/store';

const WARM_GET = { StartTransaction: 1, ExecuteStatement: 1, CommitTransaction: 1 };
const timing = (dbCommands: Record<string, number> | undefined, over: Partial<Timing> = {}): Timing => ({
  dbMs: 3,
  newConnection: false,
  dbRequests: 3,
  coldStart: false,
  initType: 'on-demand',
  ...(dbCommands ? { dbCommands } : {}),
  ...over,
});

describe('dbCommands in the timing block', () => {
  it('is valid as whole counts under names, and refused otherwise', () => {
    expect(isTiming(timing(WARM_GET))).toBe(true);
    expect(isTiming(timing(undefined))).toBe(true);
    expect(isTiming(timing({ ExecuteStatement: 1.5 }))).toBe(false);
    expect(isTiming(timing({ ExecuteStatement: -1 }))).toBe(false);
    expect(isTiming({ ...timing(undefined), dbCommands: [1, 2] })).toBe(false);
    expect(isTiming(timing({ '': 1 }))).toBe(false);
  });

  it('names the commands a SendCommand carries, never its session token', () => {
    expect(commandNames({ input: { SessionToken: 't', StartTransaction: {} } })).toEqual([
      'StartTransaction',
    ]);
    expect(commandNames({ input: { StartSession: { LedgerName: 'lab' } } })).toEqual(['StartSession']);
    expect(commandNames({ input: { SessionToken: 't', FetchPage: undefined } })).toEqual([]);
    expect(commandNames(null)).toEqual([]);
  });

  it('a call counts what was sent between two cumulative counts', () => {
    expect(
      commandsBetween(
        { StartSession: 1, StartTransaction: 2, ExecuteStatement: 2 },
        { StartSession: 1, StartTransaction: 3, ExecuteStatement: 4, CommitTransaction: 1 },
      ),
    ).toEqual({ StartTransaction: 1, ExecuteStatement: 2, CommitTransaction: 1 });
  });
});

describe('summarizeCommands', () => {
  it('groups calls by breakdown, most frequent first, in protocol order, over calls that reached the database', () => {
    const cold = { CommitTransaction: 1, ExecuteStatement: 1, StartSession: 1, StartTransaction: 1 };
    const s = summarizeCommands([
      { status: 200, timing: timing(WARM_GET) },
      { status: 404, timing: timing(WARM_GET) },
      { status: 200, timing: timing(cold, { newConnection: true, dbRequests: 4 }) },
      // A 400 never reached the database; a call without names says nothing.
      { status: 400, timing: timing({ StartSession: 1 }, { dbMs: 0, dbRequests: 0 }) },
      { status: 200, timing: timing(undefined) },
      { status: 502, timing: null },
    ]);
    expect(s).toEqual({
      calls: 3,
      breakdowns: [
        { commands: WARM_GET, total: 3, calls: 2 },
        {
          commands: { StartSession: 1, StartTransaction: 1, ExecuteStatement: 1, CommitTransaction: 1 },
          total: 4,
          calls: 1,
        },
      ],
    });
    expect(Object.keys(s?.breakdowns[1].commands ?? {})).toEqual([
      'StartSession',
      'StartTransaction',
      'ExecuteStatement',
      'CommitTransaction',
    ]);
    expect(formatBreakdown(s?.breakdowns[0] ?? { commands: {}, total: 0 })).toBe(
      '3: StartTransaction 1, ExecuteStatement 1, CommitTransaction 1',
    );
  });

  it('is null when no call named its commands (DynamoDB, Redis, DSQL)', () => {
    expect(summarizeCommands([{ status: 200, timing: timing(undefined) }])).toBeNull();
  });
});
