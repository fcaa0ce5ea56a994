/**
 * QLDB's PartiQL, parsed by a recursive-descent parser over this grammar (one method per rule;
 * keywords case-insensitive, `[]` optional, `{}` repeated, `|` alternatives):
 *
 *   statement  := ( select | insert | update | fromDml | delete | ddl ) [';'] END
 *   select     := SELECT [DISTINCT | ALL] projection FROM fromList [WHERE expr]
 *                 (GROUP BY, ORDER BY, LIMIT, OFFSET, HAVING: refused, as QLDB refused them)
 *   projection := '*' | VALUE expr | item {',' item}          item := expr [[AS] name] | name '.' '*'
 *   fromList   := source { (',' | [INNER | CROSS] JOIN) source [ON expr] }
 *   source     := expr [[AS] name] [AT name] [BY name]        (expr: a table, history(t, ...), a path)
 *   insert     := INSERT INTO name (VALUE expr | expr)        (a parameter, a struct, or a bag of them)
 *   update     := UPDATE name [[AS] name] [BY name] {',' source} dmlOp {dmlOp} [WHERE expr]
 *   fromDml    := FROM name [[AS] name] [BY name] {',' source} [WHERE expr] dmlOp {dmlOp}
 *                 (the sources after the table are collections nested in its documents, `@r.Owners AS o`)
 *   dmlOp      := SET path '=' expr {',' path '=' expr} | REMOVE path {',' path}
 *               | INSERT INTO path VALUE expr [AT expr]
 *   delete     := DELETE FROM name [[AS] name] [BY name] [WHERE expr]
 *   ddl        := CREATE TABLE name [WITH '(' name '=' expr ')'] | CREATE INDEX ON name '(' name ')'
 *               | DROP TABLE name | UNDROP TABLE name | DROP INDEX name ON name [WITH '(' name '=' expr ')']
 *   expr       := or          or := and {OR and}          and := not {AND not}
 *   not        := NOT not | predicate
 *   predicate  := concat [ compOp concat | [NOT] IN (list | '(' exprs ')' | '(' select ')' | concat)
 *                 | [NOT] BETWEEN concat AND concat | [NOT] LIKE concat [ESCAPE concat]
 *                 | IS [NOT] (NULL | MISSING | type) ]
 *   concat     := additive {'||' additive}   additive := mult {('+'|'-') mult}
 *   mult       := unary {('*'|'/'|'%') unary}   unary := ('-'|'+') unary | postfix
 *   postfix    := primary { '.' name | '.' '*' | '[' expr ']' | '[' '*' ']' }
 *   primary    := literal | '?' | name | '@' name | '(' expr ')' | '(' select ')' | '{' [expr ':' expr {','...}] '}'
 *               | '[' [exprs] ']' | '<<' [exprs] '>>' | '`' ion '`' | CAST '(' expr AS type ')'
 *               | CASE [expr] {WHEN expr THEN expr} [ELSE expr] END | EXISTS '(' select ')'
 *               | name '(' [DISTINCT] ( '*' | args ) ')'     (EXTRACT, SUBSTRING, TRIM, DATE_ADD and
 *                 DATE_DIFF take their SQL keyword forms)
 *
 * The reference implementation (partiql-lang-kotlin) is not served by the Maven registry here and the
 * Rust crates would need a Rust toolchain; a parser library (chevrotain, peggy, ohm-js) costs a
 * dependency and, for statements this short, more time per parse than a hand-written descent
 * (lexing + descent is a few microseconds here; see bench/qldb-statements.ts). So the grammar lives
 * in this file and the descent follows it rule by rule.
 *
 * Errors are QLDB's: BadRequestException with "Parser Error: at line L, column C: ..." for syntax, and
 * the evaluator's "Semantic Error: at line L, column C: ..." for names that do not resolve.
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.html
 */
import { dom, IonTypes } from 'ion-js';
import { QldbError } from './errors';

export interface Position {
  readonly line: number;
  readonly column: number;
}

export type Expr =
  | { readonly k: 'lit'; readonly v: dom.Value | undefined; readonly pos: Position }
  | { readonly k: 'param'; readonly i: number; readonly pos: Position }
  | { readonly k: 'id'; readonly name: string; readonly quoted: boolean; readonly pos: Position }
  | { readonly k: 'path'; readonly base: Expr; readonly steps: readonly PathStep[]; readonly pos: Position }
  | { readonly k: 'unary'; readonly op: 'NOT' | '-' | '+'; readonly e: Expr; readonly pos: Position }
  | { readonly k: 'bin'; readonly op: string; readonly l: Expr; readonly r: Expr; readonly pos: Position }
  | {
      readonly k: 'like';
      readonly e: Expr;
      readonly pattern: Expr;
      readonly escape?: Expr;
      readonly not: boolean;
      readonly pos: Position;
    }
  | {
      readonly k: 'between';
      readonly e: Expr;
      readonly lo: Expr;
      readonly hi: Expr;
      readonly not: boolean;
      readonly pos: Position;
    }
  | { readonly k: 'in'; readonly e: Expr; readonly set: Expr; readonly not: boolean; readonly pos: Position }
  | {
      readonly k: 'is';
      readonly e: Expr;
      readonly type: string;
      readonly not: boolean;
      readonly pos: Position;
    }
  | {
      readonly k: 'call';
      readonly name: string;
      readonly args: readonly Expr[];
      readonly star: boolean;
      readonly distinct: boolean;
      /** A keyword argument: EXTRACT's and DATE_ADD's date part, TRIM's BOTH/LEADING/TRAILING. */
      readonly keyword?: string;
      readonly pos: Position;
    }
  | { readonly k: 'cast'; readonly e: Expr; readonly type: string; readonly pos: Position }
  | {
      readonly k: 'case';
      readonly subject?: Expr;
      readonly whens: readonly (readonly [Expr, Expr])[];
      readonly otherwise?: Expr;
      readonly pos: Position;
    }
  | { readonly k: 'struct'; readonly fields: readonly (readonly [Expr, Expr])[]; readonly pos: Position }
  | { readonly k: 'list'; readonly items: readonly Expr[]; readonly pos: Position }
  | { readonly k: 'bag'; readonly items: readonly Expr[]; readonly pos: Position }
  | { readonly k: 'exists'; readonly q: SelectStatement; readonly pos: Position }
  | { readonly k: 'subquery'; readonly q: SelectStatement; readonly pos: Position };

export type PathStep =
  | { readonly k: 'field'; readonly name: string; readonly quoted: boolean }
  | { readonly k: 'index'; readonly e: Expr }
  | { readonly k: 'wildcard' }
  | { readonly k: 'unpivot' };

export interface FromSource {
  readonly expr: Expr;
  readonly as?: string;
  readonly at?: string;
  readonly by?: string;
  /** The join condition (INNER JOIN ... ON). */
  readonly on?: Expr;
  readonly pos: Position;
}

export type Projection =
  | { readonly k: 'star' }
  | { readonly k: 'value'; readonly e: Expr }
  | { readonly k: 'items'; readonly items: readonly ProjectionItem[] };
export type ProjectionItem =
  | { readonly k: 'expr'; readonly e: Expr; readonly as?: string }
  | { readonly k: 'all'; readonly name: string };

export interface SelectStatement {
  readonly kind: 'select';
  readonly distinct: boolean;
  readonly projection: Projection;
  readonly from: readonly FromSource[];
  readonly where?: Expr;
}

/** The target of a DML statement: one table, with its aliases. */
export interface DmlTarget {
  readonly table: string;
  readonly as?: string;
  readonly by?: string;
  readonly pos: Position;
}

export type DmlOp =
  | { readonly k: 'set'; readonly path: Expr; readonly value: Expr }
  | { readonly k: 'remove'; readonly path: Expr }
  | { readonly k: 'insert'; readonly path: Expr; readonly value: Expr; readonly at?: Expr };

export type Statement =
  | SelectStatement
  | { readonly kind: 'insert'; readonly target: DmlTarget; readonly value: Expr }
  | {
      readonly kind: 'update';
      readonly target: DmlTarget;
      /** Collections nested in the target's documents (`FROM t AS r, @r.Owners AS o`), bound per row. */
      readonly nested: readonly FromSource[];
      readonly ops: readonly DmlOp[];
      readonly where?: Expr;
    }
  | { readonly kind: 'delete'; readonly target: DmlTarget; readonly where?: Expr }
  | { readonly kind: 'createTable'; readonly table: string; readonly tags?: Expr; readonly pos: Position }
  | { readonly kind: 'dropTable'; readonly table: string; readonly pos: Position }
  | { readonly kind: 'undropTable'; readonly tableId: string; readonly pos: Position }
  | { readonly kind: 'createIndex'; readonly table: string; readonly field: string; readonly pos: Position }
  | {
      readonly kind: 'dropIndex';
      readonly indexId: string;
      readonly table: string;
      readonly purge: boolean;
      readonly pos: Position;
    };

export interface ParsedStatement {
  readonly statement: Statement;
  /** Number of `?` placeholders, in order of appearance. */
  readonly parameterCount: number;
  readonly text: string;
}

type TokenKind = 'ident' | 'qident' | 'string' | 'number' | 'ion' | 'punct' | 'end';
interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** Upper-cased text of an unquoted identifier, for keyword checks. */
  readonly upper: string;
  readonly line: number;
  readonly column: number;
}

const PUNCTUATION = [
  '<<',
  '>>',
  '<=',
  '>=',
  '<>',
  '!=',
  '||',
  '*',
  ',',
  '(',
  ')',
  '=',
  '?',
  '.',
  '<',
  '>',
  ';',
  '[',
  ']',
  '{',
  '}',
  ':',
  '+',
  '-',
  '/',
  '%',
  '@',
];

/** Words that end an expression or a source, so they are never taken as an implicit alias. */
const RESERVED = new Set([
  'AS',
  'AT',
  'BY',
  'WHERE',
  'SET',
  'REMOVE',
  'INSERT',
  'AND',
  'OR',
  'NOT',
  'ORDER',
  'GROUP',
  'HAVING',
  'LIMIT',
  'OFFSET',
  'JOIN',
  'INNER',
  'CROSS',
  'LEFT',
  'RIGHT',
  'FULL',
  'OUTER',
  'ON',
  'FROM',
  'SELECT',
  'VALUE',
  'IN',
  'IS',
  'LIKE',
  'BETWEEN',
  'ESCAPE',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'CASE',
  'WITH',
  'PIVOT',
  'UNPIVOT',
]);

const DATE_PARTS = new Set([
  'YEAR',
  'MONTH',
  'DAY',
  'HOUR',
  'MINUTE',
  'SECOND',
  'TIMEZONE_HOUR',
  'TIMEZONE_MINUTE',
]);

export function parserError(pos: Position, message: string): QldbError {
  return QldbError.badRequest(`Parser Error: at line ${pos.line}, column ${pos.column}: ${message}`);
}

export function semanticError(pos: Position, message: string): QldbError {
  return QldbError.badRequest(`Semantic Error: at line ${pos.line}, column ${pos.column}: ${message}`);
}

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === 32 || c === 9 || c === 13) {
      i++;
      continue;
    }
    const column = i - lineStart + 1;
    const at = { line, column };
    // Comments: -- to end of line, /* ... */.
    if (c === 45 && text.charCodeAt(i + 1) === 45) {
      while (i < n && text.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw parserError(at, 'unterminated comment');
      for (let j = i; j < end; j++) {
        if (text.charCodeAt(j) === 10) {
          line++;
          lineStart = j + 1;
        }
      }
      i = end + 2;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentPart(text.charCodeAt(j))) j++;
      const word = text.slice(i, j);
      tokens.push({ kind: 'ident', text: word, upper: word.toUpperCase(), line, column });
      i = j;
    } else if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)))) {
      const number =
        /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400))?.[0] ?? '';
      tokens.push({ kind: 'number', text: number, upper: number, line, column });
      i += number.length;
    } else if (c === 39 || c === 34) {
      // 'string' and "quoted identifier": the quote doubled stands for itself.
      const quote = text[i];
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= n)
          throw parserError(
            at,
            quote === "'" ? 'unterminated string literal' : 'unterminated quoted identifier',
          );
        const ch = text[j];
        if (ch === quote) {
          if (text[j + 1] === quote) {
            value += quote;
            j += 2;
            continue;
          }
          break;
        }
        if (ch === '\n') {
          line++;
          lineStart = j + 1;
        }
        value += ch;
        j++;
      }
      tokens.push({ kind: quote === "'" ? 'string' : 'qident', text: value, upper: value, line, column });
      i = j + 1;
    } else if (c === 96) {
      // `ion literal`: everything up to the closing backtick (Ion text has no backticks outside strings).
      let j = i + 1;
      let inString: string | undefined;
      while (j < n) {
        const ch = text[j];
        if (inString) {
          if (ch === '\\') j++;
          else if (ch === inString) inString = undefined;
        } else if (ch === '"' || ch === "'") inString = ch;
        else if (ch === '`') break;
        j++;
      }
      if (j >= n) throw parserError(at, 'unterminated Ion literal');
      tokens.push({ kind: 'ion', text: text.slice(i + 1, j), upper: '', line, column });
      i = j + 1;
    } else {
      const p = PUNCTUATION.find((q) => text.startsWith(q, i));
      if (!p) throw parserError(at, `unexpected character '${text[i]}'`);
      tokens.push({ kind: 'punct', text: p, upper: p, line, column });
      i += p.length;
    }
  }
  const column = n - lineStart + 1;
  tokens.push({ kind: 'end', text: '', upper: '', line, column });
  return tokens;
}

const NULL = new dom.Null();
const TRUE = new dom.Boolean(true);
const FALSE = new dom.Boolean(false);

/** A PartiQL numeric literal as the Ion value of the same type: int, decimal (a point), float (an exponent). */
function numberLiteral(text: string, negative: boolean, pos: Position): dom.Value {
  const m = /^([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text);
  if (!m) throw parserError(pos, `invalid number ${text}`);
  const sign = negative ? '-' : '';
  if (m[3] !== undefined) return new dom.Float(Number(`${sign}${text}`));
  if (m[2] !== undefined) {
    const whole = (m[1] || '0').replace(/^0+(?=[0-9])/, '');
    const loaded = dom.load(`${sign}${whole}.${m[2] || '0'}`);
    if (!loaded) throw parserError(pos, `invalid number ${text}`);
    return loaded;
  }
  const big = BigInt(m[1]);
  return new dom.Integer(negative ? -big : big);
}

/**
 * How deep expressions may nest, both while parsing (parentheses, subqueries, calls, NOT and sign
 * chains) and in the tree built (each operator of a chain like `a + b + c` is one level): deep
 * enough for any statement a person or an ORM writes, shallow enough that parsing and evaluation
 * never run out of stack. QLDB documents no such limit; the error is a parser error like any other.
 * AND and OR chains are built balanced, so thousands of ORs stay shallow.
 */
export const MAX_EXPRESSION_DEPTH = 200;

class Parser {
  #pos = 0;
  #params = 0;
  /** Expressions open around the current token. */
  #depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  get parameterCount(): number {
    return this.#params;
  }

  statement(): Statement {
    const t = this.#peek();
    let s: Statement;
    switch (t.kind === 'ident' ? t.upper : '') {
      case 'SELECT':
        s = this.#select();
        break;
      case 'INSERT':
        s = this.#insert();
        break;
      case 'UPDATE':
        s = this.#update();
        break;
      case 'FROM':
        s = this.#fromDml();
        break;
      case 'DELETE':
        s = this.#delete();
        break;
      case 'CREATE':
        s = this.#create();
        break;
      case 'DROP':
        s = this.#drop();
        break;
      case 'UNDROP':
        s = this.#undrop();
        break;
      default:
        throw this.#unexpected(t);
    }
    if (this.#isPunct(';')) this.#pos++;
    const rest = this.#peek();
    if (rest.kind !== 'end') throw this.#unexpected(rest);
    return s;
  }

  // --- tokens ---

  #peek(offset = 0): Token {
    return this.tokens[Math.min(this.#pos + offset, this.tokens.length - 1)];
  }

  #next(): Token {
    const t = this.tokens[this.#pos];
    if (t.kind !== 'end') this.#pos++;
    return t;
  }

  #isWord(word: string, offset = 0): boolean {
    const t = this.#peek(offset);
    return t.kind === 'ident' && t.upper === word;
  }

  #isPunct(p: string, offset = 0): boolean {
    const t = this.#peek(offset);
    return t.kind === 'punct' && t.text === p;
  }

  #acceptWord(word: string): boolean {
    if (!this.#isWord(word)) return false;
    this.#pos++;
    return true;
  }

  #acceptPunct(p: string): boolean {
    if (!this.#isPunct(p)) return false;
    this.#pos++;
    return true;
  }

  #expectWord(word: string): Token {
    const t = this.#next();
    if (t.kind !== 'ident' || t.upper !== word) throw this.#unexpected(t, `expected ${word}`);
    return t;
  }

  #expectPunct(p: string): Token {
    const t = this.#next();
    if (t.kind !== 'punct' || t.text !== p) throw this.#unexpected(t, `expected '${p}'`);
    return t;
  }

  #unexpected(t: Token, expected?: string): QldbError {
    const what =
      t.kind === 'end'
        ? 'Unexpected end of statement'
        : t.kind === 'string'
          ? `Unexpected token '${t.text}'`
          : `Unexpected ${t.kind === 'ident' && RESERVED.has(t.upper) ? 'keyword' : 'token'} '${t.text}'`;
    return parserError(t, expected ? `${what}, ${expected}` : what);
  }

  /** A name: an identifier that is not a reserved word, or a "quoted" one. */
  #name(what: string): string {
    const t = this.#next();
    if (t.kind === 'qident' || (t.kind === 'ident' && !RESERVED.has(t.upper))) return t.text;
    throw this.#unexpected(t, `expected ${what}`);
  }

  #isName(offset = 0): boolean {
    const t = this.#peek(offset);
    return t.kind === 'qident' || (t.kind === 'ident' && !RESERVED.has(t.upper));
  }

  // --- statements ---

  #refuseClauses(): void {
    const t = this.#peek();
    if (t.kind !== 'ident') return;
    for (const [word, clause] of [
      ['ORDER', 'ORDER BY'],
      ['GROUP', 'GROUP BY'],
      ['HAVING', 'HAVING'],
      ['LIMIT', 'LIMIT'],
      ['OFFSET', 'OFFSET'],
      ['UNION', 'UNION'],
      ['INTERSECT', 'INTERSECT'],
      ['EXCEPT', 'EXCEPT'],
    ] as const) {
      if (t.upper === word) throw parserError(t, `${clause} is not supported by Amazon QLDB`);
    }
  }

  #select(): SelectStatement {
    this.#expectWord('SELECT');
    let distinct = false;
    if (this.#acceptWord('DISTINCT')) distinct = true;
    else this.#acceptWord('ALL');
    let projection: Projection;
    if (this.#acceptPunct('*')) projection = { k: 'star' };
    else if (this.#acceptWord('VALUE')) projection = { k: 'value', e: this.#expr() };
    else {
      const items: ProjectionItem[] = [];
      do {
        if (this.#isName() && this.#isPunct('.', 1) && this.#isPunct('*', 2)) {
          const name = this.#name('a name');
          this.#pos += 2;
          items.push({ k: 'all', name });
          continue;
        }
        const e = this.#expr();
        let as: string | undefined;
        if (this.#acceptWord('AS')) as = this.#name('an alias');
        else if (this.#isName() && !this.#isWord('FROM')) as = this.#name('an alias');
        items.push({ k: 'expr', e, as });
      } while (this.#acceptPunct(','));
      projection = { k: 'items', items };
    }
    this.#expectWord('FROM');
    const from = this.#fromList();
    let where: Expr | undefined;
    if (this.#acceptWord('WHERE')) where = this.#expr();
    this.#refuseClauses();
    return { kind: 'select', distinct, projection, from, where };
  }

  #fromList(): FromSource[] {
    const sources: FromSource[] = [this.#source()];
    for (;;) {
      if (this.#acceptPunct(',')) {
        sources.push(this.#source());
        continue;
      }
      const t = this.#peek();
      if (
        t.kind === 'ident' &&
        (t.upper === 'LEFT' || t.upper === 'RIGHT' || t.upper === 'FULL' || t.upper === 'OUTER')
      ) {
        // QLDB supports only inner joins.
        throw parserError(t, `${t.upper} JOIN is not supported by Amazon QLDB (only inner joins)`);
      }
      if (this.#isWord('JOIN') || this.#isWord('INNER') || this.#isWord('CROSS')) {
        const cross = this.#acceptWord('CROSS');
        if (!cross) this.#acceptWord('INNER');
        this.#expectWord('JOIN');
        const source = this.#source();
        if (!cross && this.#acceptWord('ON')) sources.push({ ...source, on: this.#expr() });
        else sources.push(source);
        continue;
      }
      return sources;
    }
  }

  #source(): FromSource {
    const start = this.#peek();
    const expr = this.#postfix();
    let as: string | undefined;
    let at: string | undefined;
    let by: string | undefined;
    if (this.#acceptWord('AS')) as = this.#name('an alias');
    else if (this.#isName()) as = this.#name('an alias');
    if (this.#acceptWord('AT')) at = this.#name('an AT alias');
    if (this.#acceptWord('BY')) by = this.#name('a BY alias');
    return { expr, as, at, by, pos: start };
  }

  #target(): DmlTarget {
    const start = this.#peek();
    const table = this.#name('a table name');
    let as: string | undefined;
    let by: string | undefined;
    if (this.#acceptWord('AS')) as = this.#name('an alias');
    else if (this.#isName()) as = this.#name('an alias');
    if (this.#acceptWord('BY')) by = this.#name('a BY alias');
    return { table, as, by, pos: start };
  }

  #insert(): Statement {
    this.#expectWord('INSERT');
    this.#expectWord('INTO');
    const start = this.#peek();
    const table = this.#name('a table name');
    let as: string | undefined;
    if (this.#acceptWord('AS')) as = this.#name('an alias');
    this.#acceptWord('VALUE');
    const value = this.#expr();
    if (this.#isWord('AT')) throw parserError(this.#peek(), 'AT is not allowed when inserting into a table');
    return { kind: 'insert', target: { table, as, pos: start }, value };
  }

  #dmlOps(): DmlOp[] {
    const ops: DmlOp[] = [];
    for (;;) {
      if (this.#acceptWord('SET')) {
        do {
          const path = this.#postfix();
          this.#expectPunct('=');
          ops.push({ k: 'set', path, value: this.#expr() });
        } while (this.#acceptPunct(','));
      } else if (this.#acceptWord('REMOVE')) {
        do ops.push({ k: 'remove', path: this.#postfix() });
        while (this.#acceptPunct(','));
      } else if (this.#isWord('INSERT')) {
        this.#next();
        this.#expectWord('INTO');
        const path = this.#postfix();
        this.#expectWord('VALUE');
        const value = this.#expr();
        const at = this.#acceptWord('AT') ? this.#expr() : undefined;
        ops.push({ k: 'insert', path, value, at });
      } else break;
    }
    if (ops.length === 0) throw this.#unexpected(this.#peek(), 'expected SET, REMOVE or INSERT INTO');
    return ops;
  }

  #update(): Statement {
    this.#expectWord('UPDATE');
    const target = this.#target();
    const nested = this.#nestedSources();
    const ops = this.#dmlOps();
    const where = this.#acceptWord('WHERE') ? this.#expr() : undefined;
    return { kind: 'update', target, nested, ops, where };
  }

  #fromDml(): Statement {
    this.#expectWord('FROM');
    const target = this.#target();
    const nested = this.#nestedSources();
    const where = this.#acceptWord('WHERE') ? this.#expr() : undefined;
    const ops = this.#dmlOps();
    return { kind: 'update', target, nested, ops, where };
  }

  /** `, @r.Owners.SecondaryOwners AS o ...` after a DML statement's table (ql-reference.from.html). */
  #nestedSources(): FromSource[] {
    const sources: FromSource[] = [];
    while (this.#acceptPunct(',')) sources.push(this.#source());
    return sources;
  }

  #delete(): Statement {
    this.#expectWord('DELETE');
    this.#expectWord('FROM');
    const target = this.#target();
    const where = this.#acceptWord('WHERE') ? this.#expr() : undefined;
    return { kind: 'delete', target, where };
  }

  #withOption(): { name: string; value: Expr } | undefined {
    if (!this.#acceptWord('WITH')) return undefined;
    this.#expectPunct('(');
    const name = this.#name('an option name');
    this.#expectPunct('=');
    const value = this.#expr();
    this.#expectPunct(')');
    return { name, value };
  }

  #create(): Statement {
    const start = this.#expectWord('CREATE');
    if (this.#acceptWord('TABLE')) {
      const table = this.#name('a table name');
      const option = this.#withOption();
      if (option && option.name.toLowerCase() !== 'aws_tags') {
        throw parserError(start, `Unknown table option ${option.name}`);
      }
      return { kind: 'createTable', table, tags: option?.value, pos: start };
    }
    if (this.#acceptWord('INDEX')) {
      this.#expectWord('ON');
      const table = this.#name('a table name');
      this.#expectPunct('(');
      const fieldStart = this.#peek();
      const field = this.#name('a field name');
      if (this.#isPunct('.') || this.#isPunct('[') || this.#isPunct(',')) {
        // "An index can only be created on a single top-level field."
        throw parserError(fieldStart, 'An index can only be created on a single top-level field');
      }
      this.#expectPunct(')');
      return { kind: 'createIndex', table, field, pos: start };
    }
    throw this.#unexpected(this.#peek(), 'expected TABLE or INDEX');
  }

  #drop(): Statement {
    const start = this.#expectWord('DROP');
    if (this.#acceptWord('TABLE'))
      return { kind: 'dropTable', table: this.#name('a table name'), pos: start };
    if (this.#acceptWord('INDEX')) {
      const indexId = this.#name('an index id');
      this.#expectWord('ON');
      const table = this.#name('a table name');
      const option = this.#withOption();
      const purge =
        option?.name.toLowerCase() === 'purge' &&
        option.value.k === 'lit' &&
        option.value.v?.getType() === IonTypes.BOOL &&
        option.value.v.booleanValue() === true;
      return { kind: 'dropIndex', indexId, table, purge, pos: start };
    }
    throw this.#unexpected(this.#peek(), 'expected TABLE or INDEX');
  }

  #undrop(): Statement {
    const start = this.#expectWord('UNDROP');
    this.#expectWord('TABLE');
    return { kind: 'undropTable', tableId: this.#name('a table id'), pos: start };
  }

  // --- expressions ---

  #expr(): Expr {
    this.#enter();
    try {
      return this.#or();
    } finally {
      this.#depth -= 1;
    }
  }

  /** One more level of nesting, refused past MAX_EXPRESSION_DEPTH; the caller leaves it. */
  #enter(): void {
    this.#depth += 1;
    if (this.#depth > MAX_EXPRESSION_DEPTH) {
      this.#depth -= 1;
      throw tooDeep(this.#peek());
    }
  }

  /** Parses one more level of nesting (see #enter). */
  #nested<T>(parse: () => T): T {
    this.#enter();
    try {
      return parse();
    } finally {
      this.#depth -= 1;
    }
  }

  #or(): Expr {
    return this.#balanced('OR', () => this.#and());
  }

  #and(): Expr {
    return this.#balanced('AND', () => this.#not());
  }

  /**
   * `a OP b OP c ...` for an associative OP (AND, OR) as a balanced tree: the same value and the same
   * left-to-right order of evaluation as the left-deep tree, at logarithmic depth.
   */
  #balanced(op: 'AND' | 'OR', operand: () => Expr): Expr {
    const first = operand();
    if (!this.#isWord(op)) return first;
    const operands = [first];
    const positions: Position[] = [];
    while (this.#isWord(op)) {
      positions.push(this.#next());
      operands.push(operand());
    }
    const build = (from: number, to: number): Expr => {
      if (from === to) return operands[from];
      const mid = (from + to) >> 1;
      return { k: 'bin', op, l: build(from, mid), r: build(mid + 1, to), pos: positions[mid] };
    };
    return build(0, operands.length - 1);
  }

  #not(): Expr {
    if (this.#isWord('NOT')) {
      const pos = this.#next();
      return this.#nested(() => ({ k: 'unary', op: 'NOT', e: this.#not(), pos }));
    }
    return this.#predicate();
  }

  #predicate(): Expr {
    const e = this.#concat();
    const t = this.#peek();
    if (t.kind === 'punct' && ['=', '<>', '!=', '<', '<=', '>', '>='].includes(t.text)) {
      this.#next();
      return { k: 'bin', op: t.text === '!=' ? '<>' : t.text, l: e, r: this.#concat(), pos: t };
    }
    const not =
      this.#isWord('NOT') && (this.#isWord('IN', 1) || this.#isWord('BETWEEN', 1) || this.#isWord('LIKE', 1));
    if (not) this.#next();
    if (this.#isWord('IN')) {
      const pos = this.#next();
      let set: Expr;
      if (this.#isPunct('(') && !this.#isWord('SELECT', 1)) {
        const start = this.#next();
        const items: Expr[] = [];
        if (!this.#isPunct(')')) {
          do items.push(this.#expr());
          while (this.#acceptPunct(','));
        }
        this.#expectPunct(')');
        set = { k: 'list', items, pos: start };
      } else set = this.#concat();
      return { k: 'in', e, set, not, pos };
    }
    if (this.#isWord('BETWEEN')) {
      const pos = this.#next();
      const lo = this.#concat();
      this.#expectWord('AND');
      return { k: 'between', e, lo, hi: this.#concat(), not, pos };
    }
    if (this.#isWord('LIKE')) {
      const pos = this.#next();
      const pattern = this.#concat();
      const escapeChar = this.#acceptWord('ESCAPE') ? this.#concat() : undefined;
      return { k: 'like', e, pattern, escape: escapeChar, not, pos };
    }
    if (this.#isWord('IS')) {
      const pos = this.#next();
      const isNot = this.#acceptWord('NOT');
      const typeToken = this.#next();
      if (typeToken.kind !== 'ident') throw this.#unexpected(typeToken, 'expected NULL, MISSING or a type');
      return { k: 'is', e, type: this.#typeName(typeToken), not: isNot, pos };
    }
    return e;
  }

  /** A type name after IS or CAST ... AS: one or two words (DOUBLE PRECISION, CHARACTER VARYING). */
  #typeName(first: Token): string {
    let name = first.upper;
    if (
      (name === 'DOUBLE' && this.#isWord('PRECISION')) ||
      (name === 'CHARACTER' && this.#isWord('VARYING'))
    ) {
      name += ` ${this.#next().upper}`;
    }
    // VARCHAR(10), DECIMAL(5, 2): the precision is accepted and not enforced.
    if (this.#isPunct('(')) {
      this.#next();
      while (!this.#isPunct(')') && this.#peek().kind !== 'end') this.#next();
      this.#expectPunct(')');
    }
    return name;
  }

  #concat(): Expr {
    let l = this.#additive();
    while (this.#isPunct('||')) {
      const pos = this.#next();
      l = { k: 'bin', op: '||', l, r: this.#additive(), pos };
    }
    return l;
  }

  #additive(): Expr {
    let l = this.#mult();
    while (this.#isPunct('+') || this.#isPunct('-')) {
      const pos = this.#next();
      l = { k: 'bin', op: pos.text, l, r: this.#mult(), pos };
    }
    return l;
  }

  #mult(): Expr {
    let l = this.#unary();
    while (this.#isPunct('*') || this.#isPunct('/') || this.#isPunct('%')) {
      const pos = this.#next();
      l = { k: 'bin', op: pos.text, l, r: this.#unary(), pos };
    }
    return l;
  }

  #unary(): Expr {
    if (this.#isPunct('-') || this.#isPunct('+')) {
      const pos = this.#next();
      // A sign before a number is part of the literal, so -7 stays the int -7.
      const t = this.#peek();
      if (t.kind === 'number') {
        this.#next();
        return this.#postfixOf({ k: 'lit', v: numberLiteral(t.text, pos.text === '-', pos), pos });
      }
      return this.#nested(() => ({ k: 'unary', op: pos.text as '-' | '+', e: this.#unary(), pos }));
    }
    return this.#postfix();
  }

  #postfix(): Expr {
    return this.#postfixOf(this.#primary());
  }

  #postfixOf(base: Expr): Expr {
    const steps: PathStep[] = [];
    for (;;) {
      if (this.#isPunct('.')) {
        this.#next();
        if (this.#acceptPunct('*')) {
          steps.push({ k: 'unpivot' });
          continue;
        }
        const t = this.#next();
        if (t.kind === 'ident' || t.kind === 'qident')
          steps.push({ k: 'field', name: t.text, quoted: t.kind === 'qident' });
        else throw this.#unexpected(t, 'expected a field name');
      } else if (this.#isPunct('[')) {
        this.#next();
        if (this.#acceptPunct('*')) steps.push({ k: 'wildcard' });
        else steps.push({ k: 'index', e: this.#expr() });
        this.#expectPunct(']');
      } else break;
    }
    if (steps.length === 0) return base;
    return { k: 'path', base, steps, pos: base.pos };
  }

  #primary(): Expr {
    const t = this.#next();
    const pos: Position = t;
    switch (t.kind) {
      case 'number':
        return { k: 'lit', v: numberLiteral(t.text, false, t), pos };
      case 'string':
        return { k: 'lit', v: new dom.String(t.text), pos };
      case 'qident':
        return { k: 'id', name: t.text, quoted: true, pos };
      case 'ion': {
        let v: dom.Value | null;
        try {
          v = dom.load(t.text);
        } catch (err) {
          throw parserError(t, `invalid Ion literal: ${(err as Error).message}`);
        }
        if (v === null) throw parserError(t, 'empty Ion literal');
        return { k: 'lit', v, pos };
      }
      case 'punct':
        return this.#punctPrimary(t);
      case 'ident':
        return this.#wordPrimary(t);
      default:
        throw this.#unexpected(t);
    }
  }

  #punctPrimary(t: Token): Expr {
    const pos: Position = t;
    switch (t.text) {
      case '?':
        return { k: 'param', i: this.#params++, pos };
      case '@': {
        // `@name` is a variable, never a table: the alias of an enclosing source.
        const name = this.#next();
        if (name.kind !== 'ident' && name.kind !== 'qident')
          throw this.#unexpected(name, 'expected a name after @');
        return { k: 'id', name: name.text, quoted: name.kind === 'qident', pos };
      }
      case '(': {
        if (this.#isWord('SELECT')) {
          const q = this.#select();
          this.#expectPunct(')');
          return { k: 'subquery', q, pos };
        }
        const e = this.#expr();
        this.#expectPunct(')');
        return e;
      }
      case '{': {
        const fields: [Expr, Expr][] = [];
        if (!this.#isPunct('}')) {
          do {
            const key = this.#expr();
            this.#expectPunct(':');
            fields.push([key, this.#expr()]);
          } while (this.#acceptPunct(','));
        }
        this.#expectPunct('}');
        return { k: 'struct', fields, pos };
      }
      case '[':
      case '<<': {
        const close = t.text === '[' ? ']' : '>>';
        const items: Expr[] = [];
        if (!this.#isPunct(close)) {
          do items.push(this.#expr());
          while (this.#acceptPunct(','));
        }
        this.#expectPunct(close);
        return { k: t.text === '[' ? 'list' : 'bag', items, pos };
      }
      default:
        throw this.#unexpected(t);
    }
  }

  #wordPrimary(t: Token): Expr {
    const pos: Position = t;
    switch (t.upper) {
      case 'NULL':
        return { k: 'lit', v: NULL, pos };
      case 'MISSING':
        return { k: 'lit', v: undefined, pos };
      case 'TRUE':
        return { k: 'lit', v: TRUE, pos };
      case 'FALSE':
        return { k: 'lit', v: FALSE, pos };
      case 'CAST': {
        this.#expectPunct('(');
        const e = this.#expr();
        this.#expectWord('AS');
        const typeToken = this.#next();
        if (typeToken.kind !== 'ident') throw this.#unexpected(typeToken, 'expected a type');
        const type = this.#typeName(typeToken);
        this.#expectPunct(')');
        return { k: 'cast', e, type, pos };
      }
      case 'CASE': {
        const subject = this.#isWord('WHEN') ? undefined : this.#expr();
        const whens: [Expr, Expr][] = [];
        while (this.#acceptWord('WHEN')) {
          const w = this.#expr();
          this.#expectWord('THEN');
          whens.push([w, this.#expr()]);
        }
        if (whens.length === 0) throw this.#unexpected(this.#peek(), 'expected WHEN');
        const otherwise = this.#acceptWord('ELSE') ? this.#expr() : undefined;
        this.#expectWord('END');
        return { k: 'case', subject, whens, otherwise, pos };
      }
      case 'EXISTS': {
        if (this.#isPunct('(') && this.#isWord('SELECT', 1)) {
          this.#next();
          const q = this.#select();
          this.#expectPunct(')');
          return { k: 'exists', q, pos };
        }
        break;
      }
    }
    if (this.#isPunct('(')) return this.#call(t);
    if (RESERVED.has(t.upper)) throw this.#unexpected(t);
    return { k: 'id', name: t.text, quoted: false, pos };
  }

  #call(t: Token): Expr {
    const pos: Position = t;
    const name = t.upper;
    this.#expectPunct('(');
    const args: Expr[] = [];
    let star = false;
    let distinct = false;
    let keyword: string | undefined;
    const close = (): Expr => {
      this.#expectPunct(')');
      return { k: 'call', name, args, star, distinct, keyword, pos };
    };
    if (name === 'EXTRACT') {
      keyword = this.#datePart();
      this.#expectWord('FROM');
      args.push(this.#expr());
      return close();
    }
    if (name === 'DATE_ADD' || name === 'DATE_DIFF') {
      keyword = this.#datePart();
      this.#expectPunct(',');
      args.push(this.#expr());
      this.#expectPunct(',');
      args.push(this.#expr());
      return close();
    }
    if (name === 'TRIM') {
      // TRIM([[BOTH|LEADING|TRAILING] [chars] FROM] s)
      if (this.#isWord('BOTH') || this.#isWord('LEADING') || this.#isWord('TRAILING'))
        keyword = this.#next().upper;
      if (this.#acceptWord('FROM')) {
        args.push(this.#expr());
        return close();
      }
      const first = this.#expr();
      if (this.#acceptWord('FROM')) args.push(this.#expr(), first);
      else args.push(first);
      return close();
    }
    if (name === 'SUBSTRING') {
      args.push(this.#expr());
      if (this.#acceptWord('FROM')) {
        args.push(this.#expr());
        if (this.#acceptWord('FOR')) args.push(this.#expr());
        return close();
      }
      while (this.#acceptPunct(',')) args.push(this.#expr());
      return close();
    }
    if (this.#acceptPunct('*')) {
      star = true;
      return close();
    }
    if (this.#acceptWord('DISTINCT')) distinct = true;
    else this.#acceptWord('ALL');
    if (!this.#isPunct(')')) {
      do args.push(this.#expr());
      while (this.#acceptPunct(','));
    }
    return close();
  }

  #datePart(): string {
    const t = this.#next();
    if (t.kind !== 'ident' || !DATE_PARTS.has(t.upper)) throw this.#unexpected(t, 'expected a date part');
    return t.upper;
  }
}

function tooDeep(pos: Position): QldbError {
  return parserError(
    pos,
    `The expression nests deeper than ${MAX_EXPRESSION_DEPTH} levels (parentheses, operators, calls and subqueries count)`,
  );
}

/**
 * Refuses a tree deeper than MAX_EXPRESSION_DEPTH, so evaluation (which recurses over it) never
 * runs out of stack: a chain of 5,000 `+` parses without recursion but builds a tree that deep.
 * Walks without recursion; a node is anything with a `k` (expressions, steps) or `kind` (queries).
 */
function checkTreeDepth(root: Statement): void {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    // Literal values (`v`) and positions are never walked into.
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, depth]);
      continue;
    }
    const node = value as Record<string, unknown>;
    const isNode = 'k' in node || 'kind' in node;
    const d = isNode ? depth + 1 : depth;
    if (d > MAX_EXPRESSION_DEPTH) throw tooDeep((node.pos as Position | undefined) ?? { line: 1, column: 1 });
    for (const [key, child] of Object.entries(node)) if (key !== 'pos' && key !== 'v') stack.push([child, d]);
  }
}

/** Parses one statement, or throws QLDB's BadRequestException naming the line and column. */
export function parseStatement(text: string): ParsedStatement {
  const tokens = tokenize(text);
  const parser = new Parser(tokens);
  const statement = parser.statement();
  // Every node on a path from the root owns a token of its own, but for a few per SELECT (its
  // projection list and items): a statement this short cannot build a tree too deep to evaluate.
  if (tokens.length * 4 > MAX_EXPRESSION_DEPTH) checkTreeDepth(statement);
  return { statement, parameterCount: parser.parameterCount, text };
}
