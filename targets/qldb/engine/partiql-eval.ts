/**
 * Evaluation of parsed PartiQL over Ion values: expressions, SELECT (FROM with unnesting and inner
 * joins, WHERE, projections, SELECT VALUE, aggregates, DISTINCT) and the path edits UPDATE and
 * FROM ... SET/REMOVE/INSERT INTO make. The ledger supplies a Catalog (its tables as this
 * transaction sees them, with index lookups and OCC read tracking); nothing here knows storage.
 *
 * Names: an alias (AS, AT, BY, or the table's own name) is case-insensitive unless quoted; an
 * identifier no alias matches is a field of the FROM source's document (SELECT Name FROM T), and
 * in FROM it names a table. Field names are case-sensitive, as QLDB's are.
 */
import { dom, IonTypes } from 'ion-js';
import { QldbError } from './errors';
import { indexKey, isNumeric, sameValue } from './ion-compare';
import type { DmlOp, Expr, FromSource, PathStep, Position, ProjectionItem, SelectStatement } from './partiql';
import { semanticError } from './partiql';
import {
  AGGREGATES,
  callScalar,
  cast,
  type FunctionContext,
  isOfType,
  SCALAR_FUNCTIONS,
} from './partiql-functions';
import { compileLike, type LikePattern, likeMatches } from './partiql-like';
import {
  type ArithmeticOp,
  arithmetic,
  bag,
  bool,
  compare,
  compareNumbers,
  equals,
  FALSE,
  int,
  isBag,
  isText,
  isTrue,
  NULL,
  negate,
  str,
  TRUE,
  typeName,
  unknown,
  unknownOf,
  type Val,
} from './partiql-values';

export interface TableRow {
  readonly id: string;
  readonly data: dom.Value;
}

/** Restricts a table read to documents whose top-level `field` (or id) equals one of `values`. */
export interface Lookup {
  readonly field: string | { readonly id: true };
  readonly values: readonly dom.Value[];
}

export interface Catalog {
  /** A table's rows as the transaction sees them, or undefined when no active table has that name. */
  table(name: string, lookup: Lookup | undefined): readonly TableRow[] | undefined;
  isIndexed(table: string, field: string): boolean;
  /** information_schema.user_tables, _ql_committed_<t>, history(t, ...): undefined when not one. */
  system(
    name: string,
    args: readonly dom.Value[] | undefined,
    pos: Position,
  ): readonly dom.Value[] | undefined;
  readonly txId: string;
  readonly now: number;
}

export class Env {
  /** Lower-cased names, for case-insensitive lookups; shared by the rows of one FROM. */
  readonly lower: readonly string[];

  constructor(
    readonly parent: Env | undefined,
    readonly names: readonly string[],
    readonly values: Val[],
    /** Values an unqualified field name is looked up in (the FROM sources' documents). */
    readonly implicit: readonly number[],
    lower?: readonly string[],
  ) {
    this.lower = lower ?? names.map((n) => n.toLowerCase());
  }

  lookup(name: string, quoted: boolean): { found: boolean; value: Val } {
    const lower = quoted ? name : name.toLowerCase();
    for (let env: Env | undefined = this; env; env = env.parent) {
      const names = quoted ? env.names : env.lower;
      for (let i = 0; i < names.length; i++) {
        if (names[i] === lower) return { found: true, value: env.values[i] };
      }
    }
    return NOT_FOUND;
  }

  /** An unqualified name as a field of the innermost sources' documents. */
  field(name: string): { found: boolean; value: Val } {
    for (let env: Env | undefined = this; env; env = env.parent) {
      if (env.implicit.length === 0) continue;
      for (const i of env.implicit) {
        const v = env.values[i];
        // instanceof rather than getType()/isNull(): each call on a dom value crosses its Proxy.
        if (v instanceof dom.Struct) {
          const f = v.get(name);
          if (f !== null) return { found: true, value: f };
        }
      }
      return FOUND_MISSING;
    }
    return NOT_FOUND;
  }
}

const NOT_FOUND = { found: false, value: undefined } as const;
const FOUND_MISSING = { found: true, value: undefined } as const;

export const EMPTY_ENV = new Env(undefined, [], [], []);

/** How long one statement may evaluate before it is refused, ms (see Evaluator.tick). */
export const DEFAULT_STATEMENT_BUDGET_MS = 1_000;
/** Steps between two looks at the clock. */
const TICKS_PER_CHECK = 1024;

export class Evaluator {
  /** Documents read from tables, for ConsumedIOs.ReadIOs. */
  reads = 0;
  #ticks = 0;
  readonly #deadline: number;

  constructor(
    readonly catalog: Catalog,
    readonly params: readonly dom.Value[],
    readonly budgetMs: number = DEFAULT_STATEMENT_BUDGET_MS,
  ) {
    this.#deadline = performance.now() + budgetMs;
  }

  /**
   * One step of work. The engine serves every client from one thread, so a statement that runs
   * long holds up everyone: past its budget it is refused (it has changed nothing yet). QLDB bounds
   * a transaction at 30 s; this bound is the local engine's own, so one client's statement cannot
   * stall the others for long.
   */
  tick(): void {
    if (++this.#ticks % TICKS_PER_CHECK !== 0 || performance.now() <= this.#deadline) return;
    throw QldbError.badRequest(
      `The statement ran past the local engine's evaluation budget of ${this.budgetMs} ms and was stopped; nothing it did was kept`,
    );
  }

  fn(pos: Position): FunctionContext {
    return {
      txId: this.catalog.txId,
      now: this.catalog.now,
      fail: (message: string): never => {
        throw semanticError(pos, message);
      },
    };
  }

  // --- expressions ---

  eval(e: Expr, env: Env, group?: readonly Env[]): Val {
    this.tick();
    switch (e.k) {
      case 'lit':
        return e.v;
      case 'param':
        return this.params[e.i];
      case 'id':
        return this.#id(e.name, e.quoted, env, e.pos);
      case 'path':
        return this.#path(this.eval(e.base, env, group), e.steps, env, group);
      case 'unary': {
        const v = this.eval(e.e, env, group);
        if (e.op === 'NOT') return unknown(v) ? v : bool(!isTrue(v) && this.#boolean(v, e.pos) === false);
        if (unknown(v)) return v;
        const n = e.op === '-' ? negate(v as dom.Value) : isNumeric(v as dom.Value) ? v : undefined;
        if (n === undefined) throw semanticError(e.pos, `Unary ${e.op} expects a number, got ${typeName(v)}`);
        return n;
      }
      case 'bin':
        return this.#binary(e.op, e.l, e.r, env, e.pos, group);
      case 'like':
        return this.#like(e, env, group);
      case 'between': {
        const v = this.eval(e.e, env, group);
        const lo = this.eval(e.lo, env, group);
        const hi = this.eval(e.hi, env, group);
        if (unknown(v) || unknown(lo) || unknown(hi)) return NULL;
        const a = compare(v as dom.Value, lo as dom.Value);
        const b = compare(v as dom.Value, hi as dom.Value);
        if (a === undefined || b === undefined) return undefined;
        const inside = a >= 0 && b <= 0;
        return bool(e.not ? !inside : inside);
      }
      case 'in': {
        const v = this.eval(e.e, env, group);
        const set = this.eval(e.set, env, group);
        if (unknown(set)) return NULL;
        const items =
          (set as dom.Value).getType() === IonTypes.LIST || (set as dom.Value).getType() === IonTypes.SEXP
            ? (set as dom.Value).elements()
            : [set as dom.Value];
        if (unknown(v)) return NULL;
        let sawNull = false;
        for (const item of items) {
          // A subquery's rows of one field compare by that field's value (SQL's IN (SELECT x ...)).
          const candidate = e.set.k === 'subquery' ? single(item) : item;
          if (unknown(candidate)) {
            sawNull = true;
            continue;
          }
          if (sameValue(v as dom.Value, candidate as dom.Value, true)) return bool(!e.not);
        }
        return sawNull ? NULL : bool(e.not);
      }
      case 'is': {
        const v = this.eval(e.e, env, group);
        let r: boolean;
        if (e.type === 'MISSING') r = v === undefined;
        else if (e.type === 'NULL') r = v === undefined || v.isNull();
        else {
          if (v === undefined) r = false;
          else {
            const t = isOfType(v, e.type);
            if (t === undefined) throw semanticError(e.pos, `Unknown type ${e.type}`);
            r = t;
          }
        }
        return bool(e.not ? !r : r);
      }
      case 'call':
        return this.#call(e, env, group);
      case 'cast':
        return cast(this.eval(e.e, env, group), e.type, this.fn(e.pos));
      case 'case': {
        const subject = e.subject ? this.eval(e.subject, env, group) : undefined;
        for (const [w, then] of e.whens) {
          const c = this.eval(w, env, group);
          const hit = e.subject ? isTrue(equals(subject, c)) : isTrue(c);
          if (hit) return this.eval(then, env, group);
        }
        return e.otherwise ? this.eval(e.otherwise, env, group) : NULL;
      }
      case 'struct': {
        const fields: [string, dom.Value][] = [];
        for (const [k, v] of e.fields) {
          const key = this.eval(k, env, group);
          if (key === undefined || !isText(key)) {
            throw semanticError(k.pos, `A struct field name must be a string, got ${typeName(key)}`);
          }
          const value = this.eval(v, env, group);
          // A MISSING value leaves the field out, as PartiQL's struct constructor does.
          if (value !== undefined) fields.push([key.stringValue() ?? '', value]);
        }
        return new dom.Struct(fields);
      }
      case 'list':
      case 'bag': {
        const items: dom.Value[] = [];
        for (const item of e.items) {
          const v = this.eval(item, env, group);
          items.push(v === undefined ? NULL : v);
        }
        return e.k === 'bag' ? bag(items) : new dom.List(items);
      }
      case 'exists': {
        const rows = this.select(e.q, env);
        return bool(rows.length > 0);
      }
      case 'subquery':
        return bag(this.select(e.q, env));
    }
  }

  #boolean(v: Val, pos: Position): boolean {
    if (v !== undefined && v.getType() === IonTypes.BOOL && !v.isNull()) return v.booleanValue() === true;
    throw semanticError(pos, `Expected a boolean, got ${typeName(v)}`);
  }

  #id(name: string, quoted: boolean, env: Env, pos: Position): Val {
    const bound = env.lookup(name, quoted);
    if (bound.found) return bound.value;
    const field = env.field(name);
    if (field.found) return field.value;
    throw semanticError(pos, `No such variable named '${name}'`);
  }

  #path(base: Val, steps: readonly PathStep[], env: Env, group: readonly Env[] | undefined): Val {
    let v = base;
    for (let s = 0; s < steps.length; s++) {
      const step = steps[s];
      if (v === undefined) return undefined;
      if (step.k === 'wildcard' || step.k === 'unpivot') {
        // [*] over a list and .* over a struct: the rest of the path over each element, as a bag.
        const elements =
          step.k === 'wildcard'
            ? v.getType() === IonTypes.LIST || v.getType() === IonTypes.SEXP
              ? v.elements()
              : [v]
            : v.getType() === IonTypes.STRUCT
              ? v.elements()
              : [v];
        const out: dom.Value[] = [];
        for (const el of elements) {
          const r = this.#path(el, steps.slice(s + 1), env, group);
          if (r !== undefined) out.push(r);
        }
        return bag(out);
      }
      if (step.k === 'field') {
        if (!(v instanceof dom.Struct)) return undefined;
        const f = v.get(step.name);
        v = f === null ? undefined : f;
        continue;
      }
      if (v.isNull()) return undefined;
      const t = v.getType();
      const key = this.eval(step.e, env, group);
      if (key === undefined) return undefined;
      if (t === IonTypes.STRUCT && isText(key)) {
        const f = v.get(key.stringValue() ?? '');
        v = f === null ? undefined : f;
      } else if ((t === IonTypes.LIST || t === IonTypes.SEXP) && key.getType() === IonTypes.INT) {
        const i = Number(key.bigIntValue());
        const els = v.elements();
        v = i >= 0 && i < els.length ? els[i] : undefined;
      } else return undefined;
    }
    return v;
  }

  #binary(op: string, l: Expr, r: Expr, env: Env, pos: Position, group: readonly Env[] | undefined): Val {
    if (op === 'AND' || op === 'OR') {
      const a = this.eval(l, env, group);
      // Short-circuit: FALSE AND x is FALSE, TRUE OR x is TRUE, whatever x is.
      if (op === 'AND' && !unknown(a) && !this.#boolean(a, l.pos)) return FALSE;
      if (op === 'OR' && !unknown(a) && this.#boolean(a, l.pos)) return TRUE;
      const b = this.eval(r, env, group);
      if (!unknown(b)) {
        const bb = this.#boolean(b, r.pos);
        if (op === 'AND' && !bb) return FALSE;
        if (op === 'OR' && bb) return TRUE;
        if (!unknown(a)) return b;
      }
      return unknownOf(a, b) === undefined && (a === undefined || b === undefined) ? undefined : NULL;
    }
    const a = this.eval(l, env, group);
    const b = this.eval(r, env, group);
    switch (op) {
      case '=':
        return equals(a, b);
      case '<>': {
        const eq = equals(a, b);
        return unknown(eq) ? eq : bool(!isTrue(eq));
      }
      case '<':
      case '<=':
      case '>':
      case '>=': {
        if (unknown(a) || unknown(b)) return unknownOf(a, b);
        const c = compare(a as dom.Value, b as dom.Value);
        if (c === undefined) {
          throw semanticError(pos, `Cannot compare ${typeName(a)} with ${typeName(b)}`);
        }
        return bool(op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0);
      }
      case '||': {
        if (unknown(a) || unknown(b)) return unknownOf(a, b);
        if (!isText(a as dom.Value) || !isText(b as dom.Value)) {
          throw semanticError(pos, `|| expects strings, got ${typeName(a)} and ${typeName(b)}`);
        }
        return str(((a as dom.Value).stringValue() ?? '') + ((b as dom.Value).stringValue() ?? ''));
      }
      default: {
        if (unknown(a) || unknown(b)) return unknownOf(a, b);
        let v: Val;
        try {
          v = arithmetic(op as ArithmeticOp, a as dom.Value, b as dom.Value);
        } catch (err) {
          throw semanticError(pos, (err as Error).message);
        }
        if (v === undefined) {
          throw semanticError(pos, `${op} expects numbers, got ${typeName(a)} and ${typeName(b)}`);
        }
        return v;
      }
    }
  }

  #like(e: Extract<Expr, { k: 'like' }>, env: Env, group: readonly Env[] | undefined): Val {
    const v = this.eval(e.e, env, group);
    const p = this.eval(e.pattern, env, group);
    const x = e.escape ? this.eval(e.escape, env, group) : undefined;
    if (unknown(v) || unknown(p) || (e.escape && unknown(x))) return NULL;
    if (!isText(v as dom.Value) || !isText(p as dom.Value)) {
      throw semanticError(e.pos, `LIKE expects strings, got ${typeName(v)} and ${typeName(p)}`);
    }
    const escapeChar = x ? (x.stringValue() ?? '') : undefined;
    if (escapeChar !== undefined && Array.from(escapeChar).length !== 1) {
      throw semanticError(e.pos, 'The LIKE ESCAPE value must be a single character');
    }
    let pattern: LikePattern;
    try {
      pattern = compileLike((p as dom.Value).stringValue() ?? '', escapeChar);
    } catch (err) {
      throw semanticError(e.pos, (err as Error).message);
    }
    const hit = likeMatches((v as dom.Value).stringValue() ?? '', pattern, () => this.tick());
    return bool(e.not ? !hit : hit);
  }

  #call(e: Extract<Expr, { k: 'call' }>, env: Env, group: readonly Env[] | undefined): Val {
    if (AGGREGATES.has(e.name)) {
      if (!group)
        throw semanticError(e.pos, `${e.name} is an aggregate function and needs a SELECT over rows`);
      return this.#aggregate(e, group);
    }
    if (!SCALAR_FUNCTIONS.has(e.name)) {
      throw semanticError(e.pos, `No such function: ${e.name.toLowerCase()}`);
    }
    const args = e.args.map((a) => this.eval(a, env, group));
    return callScalar(e.name, args, e.keyword, this.fn(e.pos));
  }

  #aggregate(e: Extract<Expr, { k: 'call' }>, group: readonly Env[]): Val {
    if (e.star) {
      if (e.name !== 'COUNT') throw semanticError(e.pos, `${e.name}(*) is not valid`);
      return int(group.length);
    }
    if (e.args.length !== 1) throw semanticError(e.pos, `${e.name} takes one argument`);
    let values: dom.Value[] = [];
    for (const env of group) {
      const v = this.eval(e.args[0], env);
      if (!unknown(v)) values.push(v as dom.Value);
    }
    if (e.distinct) {
      const seen = new Set<string>();
      values = values.filter((v) => {
        const k = indexKey(v) ?? '';
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      });
    }
    if (e.name === 'COUNT') return int(values.length);
    if (values.length === 0) return NULL;
    if (e.name === 'MIN' || e.name === 'MAX') {
      let best = values[0];
      for (const v of values.slice(1)) {
        const c = compare(v, best);
        if (c === undefined)
          throw semanticError(e.pos, `${e.name} cannot compare ${typeName(v)} with ${typeName(best)}`);
        if (e.name === 'MIN' ? c < 0 : c > 0) best = v;
      }
      return best;
    }
    let sum: dom.Value = values[0];
    if (!isNumeric(sum)) throw semanticError(e.pos, `${e.name} expects numbers, got ${typeName(sum)}`);
    for (const v of values.slice(1)) {
      const s = isNumeric(v) ? arithmetic('+', sum, v) : undefined;
      if (s === undefined) throw semanticError(e.pos, `${e.name} expects numbers, got ${typeName(v)}`);
      sum = s;
    }
    if (e.name === 'SUM') return sum;
    // AVG of ints is a decimal, as PartiQL's AVG is.
    const total = sum.getType() === IonTypes.INT ? (cast(sum, 'DECIMAL', this.fn(e.pos)) as dom.Value) : sum;
    return arithmetic('/', total, int(values.length));
  }

  // --- queries ---

  /** The rows (bindings) FROM and WHERE produce, each an Env over `outer`. */
  bindings(from: readonly FromSource[], where: Expr | undefined, outer: Env): Env[] {
    const names: string[] = [];
    const implicit: number[] = [];
    for (const [i, source] of from.entries()) {
      implicit.push(names.length);
      names.push(sourceAlias(source, i));
      if (source.at) names.push(source.at);
      if (source.by) names.push(source.by);
    }
    const lower = names.map((n) => n.toLowerCase());
    const conjuncts = [...splitAnd(where), ...from.flatMap((s) => splitAnd(s.on))];
    const out: Env[] = [];
    const values: Val[] = new Array(names.length).fill(undefined);
    const visit = (i: number, slot: number): void => {
      if (i === from.length) {
        const env = new Env(outer, names, values.slice(), implicit, lower);
        if (where === undefined || isTrue(this.eval(where, env))) out.push(env);
        return;
      }
      const source = from[i];
      const partial = new Env(
        outer,
        names.slice(0, slot),
        values.slice(0, slot),
        implicit.filter((x) => x < slot),
      );
      for (const item of this.#sourceItems(source, i, partial, conjuncts, names, from.length)) {
        this.tick();
        let s = slot;
        values[s++] = item.value;
        if (source.at) values[s++] = item.at;
        if (source.by) values[s++] = item.id === undefined ? undefined : str(item.id);
        if (source.on) {
          const env = new Env(
            outer,
            names.slice(0, s),
            values.slice(0, s),
            implicit.filter((x) => x < s),
          );
          if (!isTrue(this.eval(source.on, env))) continue;
        }
        visit(i + 1, s);
      }
    };
    visit(0, 0);
    return out;
  }

  /** What one FROM source iterates: a table's documents, a system view, or a value's elements. */
  #sourceItems(
    source: FromSource,
    index: number,
    env: Env,
    conjuncts: readonly Expr[],
    names: readonly string[],
    sources: number,
  ): { value: Val; at?: Val; id?: string }[] {
    const e = source.expr;
    // A name no alias binds is a table (or information_schema.user_tables, history(...)).
    const root = e.k === 'id' ? e : e.k === 'path' && e.base.k === 'id' ? e.base : undefined;
    if (root && !env.lookup(root.name, root.quoted).found) {
      if (e.k === 'path') {
        const step = e.steps[0];
        if (root.name.toLowerCase() === 'information_schema' && e.steps.length === 1 && step.k === 'field') {
          const rows = this.catalog.system(`information_schema.${step.name}`, undefined, e.pos);
          if (rows) return rows.map((value) => ({ value }));
        }
        throw semanticError(root.pos, `No such variable named '${root.name}'`);
      }
      const alias = sourceAlias(source, index);
      const lookup = this.#lookupFor(root.name, alias, source.by, conjuncts, names, env, sources === 1);
      const rows = this.catalog.table(root.name, lookup);
      if (rows) {
        this.reads += rows.length;
        return rows.map((row) => ({ value: row.data, id: row.id }));
      }
      const system = this.catalog.system(root.name, undefined, e.pos);
      if (system) {
        this.reads += system.length;
        return system.map((value) => ({ value }));
      }
      throw semanticError(root.pos, `No such variable named '${root.name}'`);
    }
    // history(table_name | 'table_id' [, start [, end]]) (working.history.html): a name that no
    // alias binds is a table's name, a string literal its id (which also finds a dropped table).
    const table = e.k === 'call' && e.name === 'HISTORY' ? e.args[0] : undefined;
    const byId =
      table?.k === 'lit' && table.v !== undefined && table.v.getType() === IonTypes.STRING
        ? (table.v.stringValue() ?? '')
        : undefined;
    if (
      e.k === 'call' &&
      table &&
      (byId !== undefined || (table.k === 'id' && !env.lookup(table.name, table.quoted).found))
    ) {
      const args = e.args.slice(1).map((a) => {
        const v = this.eval(a, env);
        if (v === undefined) throw semanticError(a.pos, 'history() bounds must be timestamps');
        return v;
      });
      const key = byId !== undefined ? `history-id:${byId}` : `history:${(table as { name: string }).name}`;
      const rows = this.catalog.system(key, args, e.pos);
      if (!rows) {
        throw byId !== undefined
          ? semanticError(table.pos, `No such table with id '${byId}'`)
          : semanticError(table.pos, `No such variable named '${(table as { name: string }).name}'`);
      }
      this.reads += rows.length;
      return rows.map((value) => ({ value }));
    }
    const v = this.eval(e, env);
    if (v === undefined || v.isNull()) return [];
    const t = v.getType();
    if (t === IonTypes.LIST || t === IonTypes.SEXP) {
      return v.elements().map((value, i) => ({ value, at: int(i) }));
    }
    return [{ value: v }];
  }

  /**
   * An index (or document id) lookup for a table source: a WHERE/ON conjunct `alias.f = x` or
   * `f = x` (one source) or `f IN (...)` on an indexed field, where x does not depend on this source.
   */
  #lookupFor(
    table: string,
    alias: string,
    by: string | undefined,
    conjuncts: readonly Expr[],
    names: readonly string[],
    env: Env,
    single: boolean,
  ): Lookup | undefined {
    const fieldOf = (x: Expr): string | { id: true } | undefined => {
      if (x.k === 'id') {
        if (by && sameName(x.name, by, x.quoted)) return { id: true };
        if (single && !names.some((n) => sameName(x.name, n, x.quoted))) return x.name;
        return undefined;
      }
      if (x.k === 'path' && x.base.k === 'id' && x.steps.length === 1 && x.steps[0].k === 'field') {
        if (sameName(x.base.name, alias, x.base.quoted)) return x.steps[0].name;
      }
      return undefined;
    };
    const usable = (f: string | { id: true }) => typeof f !== 'string' || this.catalog.isIndexed(table, f);
    const constant = (x: Expr): dom.Value | undefined | false => {
      if (!independent(x, env, alias, by)) return false;
      try {
        return this.eval(x, env);
      } catch {
        return false;
      }
    };
    for (const c of conjuncts) {
      if (c.k === 'bin' && c.op === '=') {
        for (const [side, other] of [
          [c.l, c.r],
          [c.r, c.l],
        ] as const) {
          const f = fieldOf(side);
          if (f === undefined || !usable(f)) continue;
          const v = constant(other);
          if (v === false) continue;
          return { field: f, values: v === undefined ? [] : [v] };
        }
      }
      if (c.k === 'in' && !c.not) {
        const f = fieldOf(c.e);
        if (f === undefined || !usable(f)) continue;
        const v = constant(c.set);
        if (v === false || v === undefined || v.isNull()) continue;
        const t = v.getType();
        if (t !== IonTypes.LIST && t !== IonTypes.SEXP) continue;
        return { field: f, values: c.set.k === 'subquery' ? v.elements().map(single1) : v.elements() };
      }
    }
    return undefined;
  }

  /** SELECT: its result values, in FROM order. */
  select(q: SelectStatement, outer: Env = EMPTY_ENV): dom.Value[] {
    const rows = this.bindings(q.from, q.where, outer);
    const p = q.projection;
    let out: dom.Value[];
    const aggregate =
      (p.k === 'value' && hasAggregate(p.e)) ||
      (p.k === 'items' && p.items.some((item) => item.k === 'expr' && hasAggregate(item.e)));
    if (aggregate) {
      const env = rows[0] ?? new Env(outer, [], [], []);
      out = [this.#project(q, env, rows)];
    } else out = rows.map((env) => this.#project(q, env, undefined));
    if (q.distinct) {
      const seen = new Set<string>();
      out = out.filter((v) => {
        const k = indexKey(v) ?? 'null';
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      });
    }
    return out;
  }

  #project(q: SelectStatement, env: Env, group: readonly Env[] | undefined): dom.Value {
    const p = q.projection;
    if (p.k === 'value') {
      const v = this.eval(p.e, env, group);
      // A result bag cannot hold MISSING: the driver sees it as null.
      return v === undefined ? NULL : v;
    }
    if (p.k === 'star') {
      // SELECT * over one source is its document; over several, their fields merged.
      if (env.implicit.length === 1) {
        const only = env.values[env.implicit[0]];
        if (only !== undefined && only.getType() === IonTypes.STRUCT) return only;
      }
      const fields: [string, dom.Value][] = [];
      for (const [n, i] of env.implicit.entries()) {
        const v = env.values[i];
        if (v === undefined) continue;
        if (v.getType() === IonTypes.STRUCT && !v.isNull()) fields.push(...v.fields());
        else fields.push([env.names[i] ?? `_${n + 1}`, v]);
      }
      return new dom.Struct(fields);
    }
    const fields: [string, dom.Value][] = [];
    for (const [n, item] of p.items.entries()) {
      if (item.k === 'all') {
        const v = this.#id(item.name, false, env, q.from[0]?.pos ?? { line: 1, column: 1 });
        if (v !== undefined && v.getType() === IonTypes.STRUCT && !v.isNull()) fields.push(...v.fields());
        continue;
      }
      const v = this.eval(item.e, env, group);
      if (v !== undefined) fields.push([itemName(item, n), v]);
    }
    return new dom.Struct(fields);
  }

  // --- DML path edits ---

  /**
   * Applies SET / REMOVE / INSERT INTO to one document: paths are rooted at the target's alias, at a
   * nested source's alias (`o` of `@r.Owners AS o`: the element it is bound to), or are a top-level
   * field when unqualified. Returns the new document, or null when `REMOVE <alias>` removed the
   * whole document ("or remove an entire top-level document", ql-reference.from.html); the input
   * is left untouched.
   */
  applyOps(
    doc: dom.Value,
    ops: readonly DmlOp[],
    alias: string,
    env: Env,
    nested: ReadonlyMap<string, readonly (string | number)[]> = new Map(),
  ): dom.Value | null {
    let current = doc;
    for (const op of ops) {
      const steps = this.dmlSteps(op.path, alias, env, nested);
      if (steps.length === 0) {
        if (op.k === 'remove') return null;
        throw semanticError(
          op.path.pos,
          'A whole document cannot be replaced by SET or INSERT INTO; use DELETE then INSERT',
        );
      }
      if (op.k === 'set') {
        const v = this.eval(op.value, env);
        current = edit(current, steps, 0, (_old) => v, op.path.pos, 'set');
      } else if (op.k === 'remove') {
        current = edit(current, steps, 0, () => undefined, op.path.pos, 'remove');
      } else {
        const v = this.eval(op.value, env) ?? NULL;
        const at = op.at ? this.eval(op.at, env) : undefined;
        current = edit(
          current,
          steps,
          0,
          (old) => insertInto(old, v, at, op.path.pos),
          op.path.pos,
          'insert',
        );
      }
    }
    return current;
  }

  /** The steps from the document's root to what `path` names (see applyOps). */
  dmlSteps(
    path: Expr,
    alias: string,
    env: Env,
    nested: ReadonlyMap<string, readonly (string | number)[]>,
  ): (string | number)[] {
    const steps: (string | number)[] = [];
    let base: Expr;
    let rest: readonly PathStep[];
    if (path.k === 'id') {
      base = path;
      rest = [];
    } else if (path.k === 'path') {
      base = path.base;
      rest = path.steps;
    } else throw semanticError(path.pos, 'Expected a path to a document element');
    if (base.k !== 'id') throw semanticError(path.pos, 'Expected a path to a document element');
    const prefix = nested.get(base.name.toLowerCase());
    if (prefix) steps.push(...prefix);
    else if (!sameName(base.name, alias, base.quoted)) steps.push(base.name);
    for (const step of rest) {
      if (step.k === 'field') steps.push(step.name);
      else if (step.k === 'index') {
        const key = this.eval(step.e, env);
        if (key !== undefined && key.getType() === IonTypes.INT) steps.push(Number(key.bigIntValue()));
        else if (key !== undefined && isText(key)) steps.push(key.stringValue() ?? '');
        else throw semanticError(path.pos, `A path index must be an int or a string, got ${typeName(key)}`);
      } else throw semanticError(path.pos, 'Wildcards are not allowed in a DML path');
    }
    return steps;
  }
}

function single(v: dom.Value): Val {
  if (v.getType() === IonTypes.STRUCT && !v.isNull()) {
    const fields = v.fields();
    if (fields.length === 1) return fields[0][1];
  }
  return v;
}

function single1(v: dom.Value): dom.Value {
  return single(v) ?? NULL;
}

function sameName(name: string, other: string, quoted: boolean): boolean {
  return quoted ? name === other : name.toLowerCase() === other.toLowerCase();
}

export function sourceAlias(source: FromSource, index: number): string {
  if (source.as) return source.as;
  const e = source.expr;
  if (e.k === 'id') return e.name;
  if (e.k === 'path') {
    const last = e.steps[e.steps.length - 1];
    if (last.k === 'field') return last.name;
  }
  if (e.k === 'call' && e.args[0]?.k === 'id') return e.args[0].name;
  return `_${index + 1}`;
}

function itemName(item: Extract<ProjectionItem, { k: 'expr' }>, n: number): string {
  if (item.as) return item.as;
  const e = item.e;
  if (e.k === 'id') return e.name;
  if (e.k === 'path') {
    const last = e.steps[e.steps.length - 1];
    if (last.k === 'field') return last.name;
  }
  return `_${n + 1}`;
}

function splitAnd(e: Expr | undefined): Expr[] {
  if (!e) return [];
  if (e.k === 'bin' && e.op === 'AND') return [...splitAnd(e.l), ...splitAnd(e.r)];
  return [e];
}

export function hasAggregate(e: Expr): boolean {
  switch (e.k) {
    case 'call':
      return AGGREGATES.has(e.name) || e.args.some(hasAggregate);
    case 'bin':
      return hasAggregate(e.l) || hasAggregate(e.r);
    case 'unary':
    case 'cast':
      return hasAggregate(e.e);
    case 'path':
      return hasAggregate(e.base);
    case 'case':
      return (
        e.whens.some(([a, b]) => hasAggregate(a) || hasAggregate(b)) ||
        (e.otherwise ? hasAggregate(e.otherwise) : false)
      );
    default:
      return false;
  }
}

/** Whether an expression reads nothing the current source binds (so it can drive an index lookup). */
function independent(e: Expr, env: Env, alias: string, by: string | undefined): boolean {
  switch (e.k) {
    case 'lit':
    case 'param':
      return true;
    case 'id':
      if (sameName(e.name, alias, e.quoted) || (by && sameName(e.name, by, e.quoted))) return false;
      // Bound by an earlier source or an outer query: fixed while this source is scanned.
      return env.lookup(e.name, e.quoted).found;
    case 'path':
      return (
        independent(e.base, env, alias, by) &&
        e.steps.every((s) => s.k !== 'index' || independent(s.e, env, alias, by))
      );
    case 'list':
    case 'bag':
      return e.items.every((x) => independent(x, env, alias, by));
    case 'unary':
    case 'cast':
      return independent(e.e, env, alias, by);
    case 'bin':
      return independent(e.l, env, alias, by) && independent(e.r, env, alias, by);
    case 'call':
      return !AGGREGATES.has(e.name) && e.args.every((x) => independent(x, env, alias, by));
    default:
      return false;
  }
}

/** Rebuilds `v` with the element at steps[i..] changed by `change` (undefined removes it). */
function edit(
  v: dom.Value,
  steps: readonly (string | number)[],
  i: number,
  change: (old: Val) => Val,
  pos: Position,
  what: 'set' | 'remove' | 'insert',
): dom.Value {
  const step = steps[i];
  const last = i === steps.length - 1;
  const t = v.getType();
  if (typeof step === 'string') {
    if (t !== IonTypes.STRUCT || v.isNull()) {
      throw semanticError(pos, `Cannot ${what} field '${step}' of a ${typeName(v)}`);
    }
    const old = v.get(step);
    let next: Val;
    if (last) next = change(old === null ? undefined : old);
    else {
      if (old === null) {
        if (what === 'remove') return v;
        throw semanticError(pos, `The path element '${step}' does not exist`);
      }
      next = edit(old, steps, i + 1, change, pos, what);
    }
    const fields: [string, dom.Value][] = [];
    let replaced = false;
    for (const [name, value] of v.fields()) {
      if (name === step) {
        if (!replaced && next !== undefined) fields.push([name, next]);
        replaced = true;
      } else fields.push([name, value]);
    }
    if (!replaced && next !== undefined) fields.push([step, next]);
    return new dom.Struct(fields, v.getAnnotations());
  }
  if ((t !== IonTypes.LIST && t !== IonTypes.SEXP) || v.isNull()) {
    throw semanticError(pos, `Cannot ${what} element [${step}] of a ${typeName(v)}`);
  }
  const els = [...v.elements()];
  if (step < 0 || step >= els.length) {
    if (what === 'remove') return v;
    throw semanticError(pos, `The list index ${step} is out of bounds (the list has ${els.length} elements)`);
  }
  const next = last ? change(els[step]) : edit(els[step], steps, i + 1, change, pos, what);
  if (next === undefined) els.splice(step, 1);
  else els[step] = next;
  return t === IonTypes.LIST
    ? new dom.List(els, v.getAnnotations())
    : new dom.SExpression(els, v.getAnnotations());
}

/** INSERT INTO path VALUE v [AT pos]: appends to (or places in) a list, or adds a struct field. */
function insertInto(target: Val, v: dom.Value, at: Val, pos: Position): dom.Value {
  if (target === undefined) throw semanticError(pos, 'INSERT INTO a path that does not exist');
  const t = target.getType();
  if ((t === IonTypes.LIST || t === IonTypes.SEXP) && !target.isNull()) {
    const els = [...target.elements()];
    if (at === undefined) els.push(v);
    else {
      if (at.getType() !== IonTypes.INT) throw semanticError(pos, 'AT for a list must be an int position');
      const i = Number(at.bigIntValue());
      if (i < 0 || i > els.length)
        throw semanticError(pos, `AT ${i} is out of bounds for a list of ${els.length}`);
      els.splice(i, 0, v);
    }
    return t === IonTypes.LIST
      ? new dom.List(els, target.getAnnotations())
      : new dom.SExpression(els, target.getAnnotations());
  }
  if (t === IonTypes.STRUCT && !target.isNull()) {
    if (at === undefined || !isText(at))
      throw semanticError(pos, 'INSERT INTO a struct needs AT with the new field name');
    const name = at.stringValue() ?? '';
    if (target.get(name) !== null) throw semanticError(pos, `The field '${name}' already exists`);
    return new dom.Struct([...target.fields(), [name, v]], target.getAnnotations());
  }
  throw semanticError(pos, `Cannot INSERT INTO a ${typeName(target)}`);
}

/** QLDB's error for a statement that names a table that does not exist. */
export function noSuchTable(name: string, pos: Position = { line: 1, column: 1 }): QldbError {
  return semanticError(pos, `No such variable named '${name}'`);
}

export { compareNumbers, isBag };
