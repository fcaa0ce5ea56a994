/**
 * The protocol commands per database call, by name (the timing block's dbCommands): QLDB's
 * SendCommand carries StartSession, StartTransaction, ExecuteStatement, CommitTransaction...,
 * which a request count cannot tell apart. A phase's calls are summed up as their distinct
 * breakdowns, most frequent first, so "get 3: StartTransaction 1, ExecuteStatement 1,
 * CommitTransaction 1" is read off the first and a new session's extra StartSession off the next.
 */

import { COMMAND_ORDER } from '../core/lab-metrics.mjs';
import type { TimingLine } from '../core/timing.mjs';
import { reachedDatabase } from '../core/timing.mjs';

export interface CommandBreakdown {
  /** count per command name, in protocol order */
  readonly commands: Readonly<Record<string, number>>;
  /** the commands of one call, all names */
  readonly total: number;
  /** calls that sent exactly this */
  readonly calls: number;
}

export interface DbCommandsSummary {
  /** calls that reached the database and said what they sent */
  readonly calls: number;
  /** every distinct breakdown, most calls first (ties: fewer commands first) */
  readonly breakdowns: readonly CommandBreakdown[];
}

// QLDB's commands in the order a transaction sends them; other names follow, alphabetically.
const ORDER = COMMAND_ORDER;

function rank(name: string): number {
  const i = ORDER.indexOf(name);
  return i === -1 ? ORDER.length : i;
}

function ordered(commands: Readonly<Record<string, number>>): Record<string, number> {
  const names = Object.keys(commands)
    .filter((n) => commands[n] > 0)
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return Object.fromEntries(names.map((n) => [n, commands[n]]));
}

/** The breakdowns of the calls that reached the database; null when none carried dbCommands. */
export function summarizeCommands(
  lines: readonly Pick<TimingLine, 'status' | 'timing'>[],
): DbCommandsSummary | null {
  const byKey = new Map<string, { commands: Record<string, number>; total: number; calls: number }>();
  let calls = 0;
  for (const { status, timing } of lines) {
    if (!timing?.dbCommands || !reachedDatabase(status, timing)) continue;
    calls += 1;
    const commands = ordered(timing.dbCommands);
    const key = JSON.stringify(commands);
    const entry = byKey.get(key);
    if (entry) entry.calls += 1;
    else
      byKey.set(key, {
        commands,
        total: Object.values(commands).reduce((s, n) => s + n, 0),
        calls: 1,
      });
  }
  if (calls === 0) return null;
  const breakdowns = [...byKey.values()].sort((a, b) => b.calls - a.calls || a.total - b.total);
  return { calls, breakdowns };
}

/** `3: StartTransaction 1, ExecuteStatement 1, CommitTransaction 1`. */
export function formatBreakdown(b: Pick<CommandBreakdown, 'commands' | 'total'>): string {
  const parts = Object.entries(b.commands).map(([name, n]) => `${name} ${n}`);
  return `${b.total}: ${parts.join(', ')}`;
}
