/**
 * The PartiQL subset the local QLDB engine understands: a tokenizer and a recursive-descent
 * recognizer for exactly these forms (keywords are case-insensitive, `AS` is optional):
 *
 *   CREATE TABLE t
 *   CREATE INDEX ON t (f)
 *   SELECT * | f [, f ...] | VALUE f FROM t [AS a] [WHERE cond]
 *   SELECT * | f [, f ...] | VALUE f FROM information_schema.user_tables [WHERE cond]
 *   INSERT INTO t ?          (also `INSERT INTO t VALUE ?` and `INSERT INTO t << ?, ? >>`)
 *   UPDATE t [AS a] SET f = v [, f = v ...] [WHERE cond]
 *   DELETE FROM t [AS a] [WHERE cond]
 *
 *   cond := f = v [AND f = v ...]      f := name | a.name      v := ? | 'text' | number | true | false | null
 *   number := [-|+] digits [. digits] [e [-|+] digits]: an Ion int, decimal (with a point) or float
 *             (with an exponent), so `7`, `-7`, `7.0` and `7e0` keep the type PartiQL gives them
 *
 * `SELECT VALUE name FROM information_schema.user_tables WHERE status = 'ACTIVE'` is what pyqldb's
 * list_tables() sends (the Node driver's getTableNames() sends `SELECT name ...`).
 *
 * An overwrite (replace a whole document) is DELETE + INSERT in one transaction, which real QLDB
 * runs as written; `UPDATE t AS p SET p = ?` is not QLDB syntax (SET takes document elements).
 * Everything else (ORDER BY, which QLDB lacks anyway, JOINs, functions, nested paths, OR, <, ...)
 * is refused with a message naming the form and this list, so a new statement fails loudly.
 * No PartiQL parser exists for Node; this stays deliberately small.
 */
import { QldbError } from './errors';

/** A numeric literal as Ion text: `-7` (int), `7.0` (decimal), `7e0` (float). */
export interface NumberLiteral {
  readonly number: string;
}
export type Literal = string | NumberLiteral | boolean | null;
export type Operand =
  | { readonly kind: 'param'; readonly index: number }
  | { readonly kind: 'literal'; readonly value: Literal };
export interface Condition {
  readonly field: string;
  readonly operand: Operand;
}
export interface Assignment {
  readonly field: string;
  readonly operand: Operand;
}
export const INFORMATION_SCHEMA_TABLES = 'information_schema.user_tables';

export type Statement =
  | { readonly kind: 'createTable'; readonly table: string }
  | { readonly kind: 'createIndex'; readonly table: string; readonly field: string }
  | {
      readonly kind: 'select';
      readonly table: string;
      /** '*', the top-level fields to project, or SELECT VALUE's one field. */
      readonly projection: Projection;
      readonly where: readonly Condition[];
    }
  | { readonly kind: 'insert'; readonly table: string; readonly documents: readonly Operand[] }
  | {
      readonly kind: 'update';
      readonly table: string;
      readonly set: readonly Assignment[];
      readonly where: readonly Condition[];
    }
  | { readonly kind: 'delete'; readonly table: string; readonly where: readonly Condition[] };

export type Projection = '*' | readonly string[] | { readonly value: string };

export interface ParsedStatement {
  readonly statement: Statement;
  /** Number of `?` placeholders, in order of appearance. */
  readonly parameterCount: number;
}

export const SUPPORTED_FORMS = [
  'CREATE TABLE t',
  'CREATE INDEX ON t (f)',
  'SELECT *|f,...|VALUE f FROM t [AS a] [WHERE f = v [AND ...]]',
  'SELECT *|f,...|VALUE f FROM information_schema.user_tables [WHERE ...]',
  'INSERT INTO t ? | INSERT INTO t VALUE ? | INSERT INTO t << ?, ... >>',
  'UPDATE t [AS a] SET f = v [, ...] [WHERE ...]',
  'DELETE FROM t [AS a] [WHERE ...]',
] as const;

type TokenKind = 'ident' | 'string' | 'number' | 'punct' | 'end';
interface Token {
  readonly kind: TokenKind;
  readonly text: string;
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
  '`',
  ':',
  '+',
  '-',
  '/',
];
const KEYWORDS = new Set([
  'AS',
  'WHERE',
  'SET',
  'AND',
  'OR',
  'ORDER',
  'GROUP',
  'LIMIT',
  'BY',
  'JOIN',
  'AT',
  'VALUE',
]);

function unsupported(statement: string, what: string): QldbError {
  return QldbError.badRequest(
    `Statement not supported by the local QLDB engine (${what}): ${statement}. Supported forms: ${SUPPORTED_FORMS.join('; ')}`,
  );
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const column = i + 1;
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j])) j++;
      tokens.push({ kind: 'ident', text: text.slice(i, j), column });
      i = j;
    } else if (/[0-9]/.test(c)) {
      const number = /^[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?/.exec(text.slice(i))?.[0] ?? c;
      tokens.push({ kind: 'number', text: number, column });
      i += number.length;
    } else if (c === "'") {
      // PartiQL escapes a quote inside a string by doubling it.
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length)
          throw QldbError.badRequest(`Syntax error: at line 1, column ${column}: unterminated string`);
        if (text[j] === "'") {
          if (text[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += text[j++];
      }
      tokens.push({ kind: 'string', text: value, column });
      i = j + 1;
    } else if (c === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0)
        throw QldbError.badRequest(`Syntax error: at line 1, column ${column}: unterminated identifier`);
      tokens.push({ kind: 'ident', text: text.slice(i + 1, end), column });
      i = end + 1;
    } else {
      const p = PUNCTUATION.find((q) => text.startsWith(q, i));
      if (!p)
        throw QldbError.badRequest(`Syntax error: at line 1, column ${column}: unexpected character ${c}`);
      tokens.push({ kind: 'punct', text: p, column });
      i += p.length;
    }
  }
  tokens.push({ kind: 'end', text: '', column: text.length + 1 });
  return tokens;
}

class Parser {
  #pos = 0;
  #params = 0;
  #alias: string | undefined;
  #table = '';

  constructor(
    private readonly source: string,
    private readonly tokens: readonly Token[],
  ) {}

  get parameterCount(): number {
    return this.#params;
  }

  parse(): Statement {
    const first = this.#peek();
    const word = first.kind === 'ident' ? first.text.toUpperCase() : first.text;
    let statement: Statement;
    switch (word) {
      case 'CREATE':
        statement = this.#create();
        break;
      case 'SELECT':
        statement = this.#select();
        break;
      case 'INSERT':
        statement = this.#insert();
        break;
      case 'UPDATE':
        statement = this.#update();
        break;
      case 'DELETE':
        statement = this.#delete();
        break;
      default:
        throw unsupported(this.source, `${word || 'an empty statement'} statements`);
    }
    if (this.#peek().text === ';') this.#pos++;
    const rest = this.#peek();
    if (rest.kind !== 'end')
      throw unsupported(this.source, `'${this.#describe(rest)}' at column ${rest.column}`);
    return statement;
  }

  #peek(): Token {
    return this.tokens[this.#pos];
  }

  #next(): Token {
    const t = this.tokens[this.#pos];
    if (t.kind !== 'end') this.#pos++;
    return t;
  }

  #isWord(word: string): boolean {
    const t = this.#peek();
    return t.kind === 'ident' && t.text.toUpperCase() === word;
  }

  #describe(t: Token): string {
    if (t.kind !== 'ident') return t.text || 'end of statement';
    const upper = t.text.toUpperCase();
    // Name the clause, not just its first word: "ORDER BY", "GROUP BY".
    const after = this.tokens[this.tokens.indexOf(t) + 1];
    if ((upper === 'ORDER' || upper === 'GROUP') && after?.text.toUpperCase() === 'BY') return `${upper} BY`;
    return upper;
  }

  #expectWord(word: string): void {
    const t = this.#next();
    if (t.kind !== 'ident' || t.text.toUpperCase() !== word) {
      throw unsupported(this.source, `expected ${word} at column ${t.column}, found '${this.#describe(t)}'`);
    }
  }

  #expectPunct(p: string): void {
    const t = this.#next();
    if (t.kind !== 'punct' || t.text !== p) {
      throw unsupported(this.source, `expected '${p}' at column ${t.column}, found '${this.#describe(t)}'`);
    }
  }

  #name(what: string): string {
    const t = this.#next();
    if (t.kind !== 'ident' || KEYWORDS.has(t.text.toUpperCase())) {
      throw unsupported(this.source, `expected ${what} at column ${t.column}, found '${this.#describe(t)}'`);
    }
    return t.text;
  }

  #create(): Statement {
    this.#expectWord('CREATE');
    if (this.#isWord('TABLE')) {
      this.#next();
      return { kind: 'createTable', table: this.#name('a table name') };
    }
    if (this.#isWord('INDEX')) {
      this.#next();
      this.#expectWord('ON');
      const table = this.#name('a table name');
      this.#expectPunct('(');
      const field = this.#name('a field name');
      this.#expectPunct(')');
      return { kind: 'createIndex', table, field };
    }
    throw unsupported(this.source, `CREATE ${this.#describe(this.#peek())}`);
  }

  /** `t [AS a]`, or information_schema.user_tables. */
  #source(): string {
    const table = this.#name('a table name');
    if (this.#peek().text === '.') {
      this.#next();
      const sub = this.#name('a table name');
      const full = `${table}.${sub}`;
      if (full !== INFORMATION_SCHEMA_TABLES) throw unsupported(this.source, `the source ${full}`);
      this.#table = full;
      return full;
    }
    this.#table = table;
    if (this.#isWord('AS')) {
      this.#next();
      this.#alias = this.#name('an alias');
    } else if (this.#peek().kind === 'ident' && !KEYWORDS.has(this.#peek().text.toUpperCase())) {
      this.#alias = this.#name('an alias');
    }
    if (this.#isWord('BY')) throw unsupported(this.source, 'BY (document id aliases)');
    return table;
  }

  /** A top-level field, bare or qualified by the table's alias (or name). */
  #field(): string {
    const first = this.#name('a field name');
    if (this.#peek().text !== '.') return first;
    this.#next();
    if (first !== this.#alias && first !== this.#table) {
      throw unsupported(
        this.source,
        `the path ${first}.${this.#peek().text} (only top-level fields of the table)`,
      );
    }
    const field = this.#name('a field name');
    if (this.#peek().text === '.' || this.#peek().text === '[') {
      throw unsupported(this.source, `the nested path ${first}.${field}${this.#peek().text}...`);
    }
    return field;
  }

  #operand(): Operand {
    const t = this.#next();
    if (t.kind === 'punct' && t.text === '?') return { kind: 'param', index: this.#params++ };
    if (t.kind === 'string') return { kind: 'literal', value: t.text };
    if (t.kind === 'number') return { kind: 'literal', value: { number: ionNumber(t.text, false) } };
    // A sign before a number is part of the literal (PartiQL's unary minus on a constant).
    if (t.kind === 'punct' && (t.text === '-' || t.text === '+') && this.#peek().kind === 'number') {
      return { kind: 'literal', value: { number: ionNumber(this.#next().text, t.text === '-') } };
    }
    if (t.kind === 'ident') {
      const upper = t.text.toUpperCase();
      if (upper === 'TRUE' || upper === 'FALSE') return { kind: 'literal', value: upper === 'TRUE' };
      if (upper === 'NULL') return { kind: 'literal', value: null };
    }
    throw unsupported(
      this.source,
      `the value '${this.#describe(t)}' at column ${t.column} (use ? or a literal)`,
    );
  }

  #where(): Condition[] {
    if (!this.#isWord('WHERE')) return [];
    this.#next();
    const conditions: Condition[] = [];
    for (;;) {
      const field = this.#field();
      const op = this.#next();
      if (op.text !== '=') throw unsupported(this.source, `the operator '${this.#describe(op)}' (only =)`);
      conditions.push({ field, operand: this.#operand() });
      if (!this.#isWord('AND')) return conditions;
      this.#next();
    }
  }

  #select(): Statement {
    this.#expectWord('SELECT');
    let projection: '*' | string[] | { value: string };
    const fieldTokens: number[] = [];
    let valueToken: number | undefined;
    if (this.#peek().text === '*') {
      this.#next();
      projection = '*';
    } else if (this.#isWord('VALUE')) {
      // SELECT VALUE f: each result is the field's value itself, not a struct holding it.
      this.#next();
      valueToken = this.#pos;
      this.#name('a field name');
      if (this.#peek().text === '(')
        throw unsupported(this.source, `the function ${this.tokens[this.#pos - 1].text.toUpperCase()}()`);
      while (this.#peek().text === '.') {
        this.#next();
        this.#name('a field name');
      }
      projection = { value: '' };
    } else {
      // Fields may name the alias, which is declared after them: remember where they are.
      projection = [];
      for (;;) {
        fieldTokens.push(this.#pos);
        this.#name('a field name');
        if (this.#peek().text === '(')
          throw unsupported(this.source, `the function ${this.tokens[this.#pos - 1].text.toUpperCase()}()`);
        while (this.#peek().text === '.') {
          this.#next();
          this.#name('a field name');
        }
        if (this.#peek().text !== ',') break;
        this.#next();
      }
    }
    this.#expectWord('FROM');
    const table = this.#source();
    const where = this.#where();
    if (Array.isArray(projection)) {
      const end = this.#pos;
      for (const start of fieldTokens) {
        this.#pos = start;
        projection.push(this.#field());
      }
      this.#pos = end;
    } else if (valueToken !== undefined) {
      const end = this.#pos;
      this.#pos = valueToken;
      projection = { value: this.#field() };
      this.#pos = end;
    }
    return { kind: 'select', table, projection, where };
  }

  #insert(): Statement {
    this.#expectWord('INSERT');
    this.#expectWord('INTO');
    const table = this.#name('a table name');
    if (this.#isWord('VALUE')) this.#next();
    if (this.#peek().text === '<<') {
      this.#next();
      const documents: Operand[] = [];
      for (;;) {
        documents.push(this.#document());
        if (this.#peek().text !== ',') break;
        this.#next();
      }
      this.#expectPunct('>>');
      return { kind: 'insert', table, documents };
    }
    return { kind: 'insert', table, documents: [this.#document()] };
  }

  #document(): Operand {
    const t = this.#peek();
    if (t.text !== '?')
      throw unsupported(
        this.source,
        `a document literal at column ${t.column} (pass documents as ? parameters)`,
      );
    return this.#operand();
  }

  #update(): Statement {
    this.#expectWord('UPDATE');
    const table = this.#source();
    if (table === INFORMATION_SCHEMA_TABLES) throw unsupported(this.source, 'UPDATE of a system table');
    if (!this.#isWord('SET'))
      throw unsupported(this.source, `UPDATE ... ${this.#describe(this.#peek())} (only SET)`);
    this.#next();
    const set: Assignment[] = [];
    for (;;) {
      const start = this.#peek();
      const field = this.#field();
      if (field === this.#alias || (this.#alias === undefined && field === table)) {
        throw unsupported(
          this.source,
          `SET of the whole document at column ${start.column}; use DELETE then INSERT`,
        );
      }
      this.#expectPunct('=');
      set.push({ field, operand: this.#operand() });
      if (this.#peek().text !== ',') break;
      this.#next();
    }
    return { kind: 'update', table, set, where: this.#where() };
  }

  #delete(): Statement {
    this.#expectWord('DELETE');
    this.#expectWord('FROM');
    const table = this.#source();
    if (table === INFORMATION_SCHEMA_TABLES) throw unsupported(this.source, 'DELETE from a system table');
    return { kind: 'delete', table, where: this.#where() };
  }
}

/**
 * A PartiQL numeric literal as Ion text of the same type: digits alone are an int, a point makes a
 * decimal, an exponent a float. Ion wants no leading zeros and a digit after the point.
 */
function ionNumber(text: string, negative: boolean): string {
  const m = /^([0-9]+)(\.[0-9]*)?([eE][+-]?[0-9]+)?$/.exec(text);
  if (!m) throw QldbError.badRequest(`Syntax error: invalid number ${text}`);
  const whole = m[1].replace(/^0+(?=[0-9])/, '');
  const fraction = m[2] === undefined ? '' : m[2] === '.' ? '.0' : m[2];
  return `${negative ? '-' : ''}${whole}${fraction}${m[3] ?? ''}`;
}

/** Parses one statement of the subset, or throws QLDB's BadRequestException. */
export function parseStatement(text: string): ParsedStatement {
  const parser = new Parser(text, tokenize(text));
  const statement = parser.parse();
  return { statement, parameterCount: parser.parameterCount };
}
