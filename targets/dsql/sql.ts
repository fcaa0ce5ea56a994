/**
 * What Aurora DSQL refuses, decided before a statement reaches PostgreSQL: a tokenizer that
 * knows PostgreSQL's lexical rules (comments, nested block comments, '' and E'' strings,
 * dollar quoting, quoted identifiers) and a classifier over the tokens of each statement.
 *
 * Why not a parser: the registry's real parser (libpg-query / pgsql-parser, PostgreSQL's own
 * grammar compiled to WebAssembly) would be the faithful choice but is a new, multi-megabyte
 * dependency for a lab that sends a handful of statement shapes; pgsql-ast-parser is its own
 * grammar and lags PostgreSQL's. What DSQL refuses is decided by a statement's leading keywords
 * and a few clauses (TEMP, LANGUAGE, ASYNC, USING, CACHE, a serial type, PROGRAM), which tokens
 * decide exactly once strings and comments cannot fool them. The limits are in docs/differences.md.
 *
 * Every refusal carries DSQL's SQLSTATE and message. Where they come from:
 *   measured   - messages seen from a real cluster, recorded by users (see each rule's note);
 *   inferred   - DSQL documents the feature as unsupported but no message was found; the
 *                message follows DSQL's pattern for its siblings and says so in its note.
 * Docs: https://docs.aws.amazon.com/aurora-dsql/latest/userguide/working-with-postgresql-compatibility-unsupported-features.html
 */

export interface DsqlError {
  readonly code: string;
  readonly message: string;
}

/** What a statement is, for DSQL's one-kind-per-transaction rule. */
export type StatementKind = 'ddl' | 'dml' | 'begin' | 'end' | 'other';

export interface Classified {
  readonly kind: StatementKind;
  /** DSQL refuses the statement with this error. */
  readonly refusal?: DsqlError;
  /** The statement as PostgreSQL must run it (DSQL's dialect translated), when it differs. */
  readonly rewritten?: string;
  /** COMMIT or END (the 'end' kinds that commit rather than roll back). */
  readonly commit?: boolean;
}

type TokenType = 'word' | 'ident' | 'string' | 'number' | 'param' | 'op' | 'semicolon';

export interface Token {
  readonly type: TokenType;
  /** Words lower-cased; identifiers and strings unquoted. */
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

/** PostgreSQL's tokens, comments dropped. Never throws: an unterminated string runs to the end. */
export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    const start = i;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      // Block comments nest in PostgreSQL.
      let depth = 0;
      while (i < n) {
        if (sql[i] === '/' && sql[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (sql[i] === '*' && sql[i + 1] === '/') {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else i++;
      }
    } else if (c === "'" || ((c === 'E' || c === 'e') && sql[i + 1] === "'")) {
      const escapes = c !== "'";
      i += escapes ? 2 : 1;
      let text = '';
      while (i < n) {
        if (escapes && sql[i] === '\\') {
          text += sql[i + 1] ?? '';
          i += 2;
        } else if (sql[i] === "'" && sql[i + 1] === "'") {
          text += "'";
          i += 2;
        } else if (sql[i] === "'") {
          i++;
          break;
        } else text += sql[i++];
      }
      out.push({ type: 'string', text, start, end: i });
    } else if (c === '"') {
      i++;
      let text = '';
      while (i < n) {
        if (sql[i] === '"' && sql[i + 1] === '"') {
          text += '"';
          i += 2;
        } else if (sql[i] === '"') {
          i++;
          break;
        } else text += sql[i++];
      }
      out.push({ type: 'ident', text, start, end: i });
    } else if (c === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      i++;
      while (i < n && /[0-9]/.test(sql[i])) i++;
      out.push({ type: 'param', text: sql.slice(start, i), start, end: i });
    } else if (c === '$') {
      // $tag$ ... $tag$ (tag optional); a lone $ is an operator character.
      const m = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i));
      if (m) {
        const close = sql.indexOf(m[0], i + m[0].length);
        const bodyEnd = close === -1 ? n : close;
        out.push({ type: 'string', text: sql.slice(i + m[0].length, bodyEnd), start, end: 0 });
        i = close === -1 ? n : close + m[0].length;
        (out[out.length - 1] as { end: number }).end = i;
      } else {
        out.push({ type: 'op', text: c, start, end: ++i });
      }
    } else if (WORD_START.test(c)) {
      while (i < n && WORD_PART.test(sql[i])) i++;
      out.push({ type: 'word', text: sql.slice(start, i).toLowerCase(), start, end: i });
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      while (i < n && /[0-9._eE]/.test(sql[i])) i++;
      out.push({ type: 'number', text: sql.slice(start, i), start, end: i });
    } else if (c === ';') {
      out.push({ type: 'semicolon', text: ';', start, end: ++i });
    } else {
      out.push({ type: 'op', text: c, start, end: ++i });
    }
  }
  return out;
}

export interface Statement {
  readonly tokens: readonly Token[];
  /** The statement's own text, comments inside it kept. */
  readonly text: string;
}

/** The statements of a query string, split at top-level semicolons; empty ones dropped. */
export function splitStatements(sql: string): Statement[] {
  const out: Statement[] = [];
  let current: Token[] = [];
  const flush = (): void => {
    if (current.length > 0) {
      out.push({ tokens: current, text: sql.slice(current[0].start, current[current.length - 1].end) });
    }
    current = [];
  };
  for (const token of tokenize(sql)) {
    if (token.type === 'semicolon') flush();
    else current.push(token);
  }
  flush();
  return out;
}

const unsupported = (message: string): DsqlError => ({ code: '0A000', message });

/** Settings DSQL lets a session change (the rest: `setting configuration parameter "x" not supported`). */
const SETTABLE = new Set([
  'application_name',
  'bytea_output',
  'client_encoding',
  'datestyle',
  'extra_float_digits',
  'intervalstyle',
  'search_path',
  'standard_conforming_strings',
  'timezone',
  'transaction_isolation',
]);

const SERIAL_TYPES = new Set(['serial', 'serial2', 'serial4', 'serial8', 'smallserial', 'bigserial']);

const DDL_VERBS = new Set(['create', 'alter', 'drop', 'comment']);
/** Words that put a constraint (or a default) on a column being added. */
const COLUMN_CONSTRAINTS = ['default', 'not', 'primary', 'unique', 'references', 'check', 'generated'];
const DML_VERBS = new Set(['insert', 'update', 'delete', 'merge']);

const isWord = (t: Token | undefined, ...words: string[]): boolean =>
  t?.type === 'word' && words.includes(t.text);

function findWord(tokens: readonly Token[], word: string, from = 0): number {
  for (let i = from; i < tokens.length; i++) if (isWord(tokens[i], word)) return i;
  return -1;
}

/** `AWS IAM GRANT role TO 'arn'` / `AWS IAM REVOKE role FROM 'arn'`: the mapping table's edit. */
function iamGrant(t: readonly Token[]): string | undefined {
  if (!(isWord(t[0], 'aws') && isWord(t[1], 'iam') && t.length === 6)) return undefined;
  const [, , verb, role, prep, arn] = t;
  const roleOk = (role.type === 'word' || role.type === 'ident') && /^[a-z_][a-z0-9_]{0,62}$/.test(role.text);
  const arnOk = arn.type === 'string' && /^arn:[^']+$/.test(arn.text);
  if (!roleOk || !arnOk) return undefined;
  if (isWord(verb, 'grant') && isWord(prep, 'to')) {
    // NOT NULL on pg_role_name: a role that does not exist fails the statement, as in DSQL.
    return `INSERT INTO sys.iam_pg_role_mappings (arn, pg_role_name) VALUES ('${arn.text}', (SELECT rolname::text FROM pg_roles WHERE rolname = '${role.text}'))`;
  }
  if (isWord(verb, 'revoke') && isWord(prep, 'from')) {
    return `DELETE FROM sys.iam_pg_role_mappings WHERE pg_role_name = '${role.text}' AND arn = '${arn.text}'`;
  }
  return undefined;
}

function classifyCreate(s: Statement): Classified {
  const t = s.tokens;
  let i = 1;
  if (isWord(t[i], 'or') && isWord(t[i + 1], 'replace')) i += 2;
  // CREATE [GLOBAL|LOCAL] {TEMP|TEMPORARY} [UNLOGGED] TABLE ...
  if (isWord(t[i], 'global', 'local')) i++;
  if (isWord(t[i], 'temp', 'temporary')) {
    // measured: 0A000 "TEMPORARY or TEMP table not supported for CREATE TABLE"
    if (isWord(t[i + 1], 'table') || isWord(t[i + 2], 'table'))
      return { kind: 'ddl', refusal: unsupported('TEMPORARY or TEMP table not supported for CREATE TABLE') };
    // CREATE TEMP VIEW / SEQUENCE: temporary objects are unsupported alike (inferred).
    return { kind: 'ddl', refusal: unsupported('TEMPORARY or TEMP objects not supported') };
  }
  if (isWord(t[i], 'unlogged')) i++;
  const what = t[i];
  if (isWord(what, 'extension')) {
    // measured: 0A000 "unsupported statement: CreateExtension"
    return { kind: 'ddl', refusal: unsupported('unsupported statement: CreateExtension') };
  }
  if (isWord(what, 'trigger') || (isWord(what, 'constraint') && isWord(t[i + 1], 'trigger'))) {
    // measured: 0A000 "CREATE TRIGGER not supported"
    return { kind: 'ddl', refusal: unsupported('CREATE TRIGGER not supported') };
  }
  if (isWord(what, 'database')) {
    // inferred (node CreatedbStmt): DSQL has the one database `postgres`.
    return { kind: 'ddl', refusal: unsupported('unsupported statement: Createdb') };
  }
  if (isWord(what, 'function', 'procedure')) {
    const at = findWord(t, 'language', i);
    const lang = at === -1 ? undefined : t[at + 1];
    const name = lang && (lang.type === 'word' ? lang.text : lang.text.toLowerCase());
    if (name !== undefined && name !== 'sql') {
      // measured: 0A000 "CREATE FUNCTION with language plpgsql not supported"
      return {
        kind: 'ddl',
        refusal: unsupported(`CREATE ${what.text.toUpperCase()} with language ${name} not supported`),
      };
    }
    return { kind: 'ddl' };
  }
  if (isWord(what, 'sequence')) {
    const at = findWord(t, 'cache', i);
    const value = at === -1 ? undefined : Number(t[at + 1]?.text);
    if (value === undefined || !(value === 1 || value >= 65_536)) {
      // measured: the whole message below, 0A000
      return {
        kind: 'ddl',
        refusal: unsupported(
          'CREATE SEQUENCE is not supported without an explicit cache size. please define CACHE greater than or equal to 65536 or equal to 1',
        ),
      };
    }
    return { kind: 'ddl' };
  }
  if (isWord(what, 'unique') || isWord(what, 'index')) {
    const at = isWord(what, 'unique') ? i + 1 : i;
    if (!isWord(t[at], 'index')) return { kind: 'ddl' };
    if (findWord(t, 'using', at) !== -1) {
      // measured: 0A000 "USING not supported for CREATE INDEX"
      return { kind: 'ddl', refusal: unsupported('USING not supported for CREATE INDEX') };
    }
    if (!isWord(t[at + 1], 'async')) {
      // measured: 0A000 "unsupported mode. please use CREATE INDEX ASYNC."
      return { kind: 'ddl', refusal: unsupported('unsupported mode. please use CREATE INDEX ASYNC.') };
    }
    // Locally the index is built at once: there is no job to wait for.
    const asyncToken = t[at + 1];
    const next = t[at + 2] ?? asyncToken;
    const base = t[0].start;
    return {
      kind: 'ddl',
      rewritten: `${s.text.slice(0, asyncToken.start - base)}${s.text.slice(next === asyncToken ? asyncToken.end - base : next.start - base)}`,
    };
  }
  if (isWord(what, 'table')) {
    const serial = serialColumn(t, i + 1);
    if (serial) return { kind: 'ddl', refusal: serial };
    return { kind: 'ddl' };
  }
  return { kind: 'ddl' };
}

/** A column declared with a serial type: DSQL has no such types (they make a sequence). */
function serialColumn(t: readonly Token[], from: number): DsqlError | undefined {
  for (let j = from + 1; j < t.length; j++) {
    const prev = t[j - 1];
    if (
      t[j].type === 'word' &&
      SERIAL_TYPES.has(t[j].text) &&
      (prev.type === 'word' || prev.type === 'ident')
    ) {
      // measured: 42704 type "serial" does not exist
      return { code: '42704', message: `type "${t[j].text}" does not exist` };
    }
  }
  return undefined;
}

function classifyAlter(t: readonly Token[]): Classified {
  if (isWord(t[1], 'system')) {
    // inferred (node AlterSystemStmt): "All ALTER SYSTEM commands are blocked."
    return { kind: 'ddl', refusal: unsupported('unsupported statement: AlterSystem') };
  }
  if (isWord(t[1], 'table')) {
    const serial = serialColumn(t, 2);
    if (serial) return { kind: 'ddl', refusal: serial };
    const add = findWord(t, 'add');
    const fk = findWord(t, 'foreign');
    const columnAdd =
      add !== -1 && !isWord(t[add + 1], 'constraint', 'primary', 'unique', 'foreign', 'check', 'exclude');
    if (columnAdd && t.slice(add).some((x) => isWord(x, ...COLUMN_CONSTRAINTS))) {
      // measured: 0A000 "ALTER TABLE ADD COLUMN with constraint not supported" (DEFAULT included)
      return { kind: 'ddl', refusal: unsupported('ALTER TABLE ADD COLUMN with constraint not supported') };
    }
    const alter = findWord(t, 'alter', 1);
    const column = alter + (isWord(t[alter + 1], 'column') ? 2 : 1);
    const typeChange =
      isWord(t[column + 1], 'type') || (isWord(t[column + 1], 'set') && isWord(t[column + 2], 'data'));
    if (alter !== -1 && typeChange) {
      // measured: 0A000, this message
      return {
        kind: 'ddl',
        refusal: unsupported('unsupported ALTER TABLE ALTER COLUMN ... SET DATA TYPE statement'),
      };
    }
    if (add !== -1 && fk !== -1 && findWord(t, 'valid') === -1) {
      // measured: a foreign key added to an existing table must be NOT VALID (then ALTER TABLE
      // ASYNC ... VALIDATE CONSTRAINT); without it, 0A000 "unsupported ALTER TABLE ADD CONSTRAINT statement".
      return { kind: 'ddl', refusal: unsupported('unsupported ALTER TABLE ADD CONSTRAINT statement') };
    }
  }
  return { kind: 'ddl' };
}

function classifySet(t: readonly Token[]): Classified {
  let i = 1;
  if (isWord(t[i], 'session') && !isWord(t[i + 1], 'characteristics', 'authorization')) i++;
  if (isWord(t[i], 'local')) i++;
  const first = t[i];
  if (!first) return { kind: 'other' };
  // SET TRANSACTION ..., SET SESSION CHARACTERISTICS ...: transaction modes, not parameters.
  if (isWord(first, 'transaction', 'characteristics')) return { kind: 'other' };
  let name: string;
  if (isWord(first, 'time') && isWord(t[i + 1], 'zone')) name = 'timezone';
  else if (isWord(first, 'names')) name = 'client_encoding';
  else if (isWord(first, 'session') && isWord(t[i + 1], 'authorization')) name = 'session_authorization';
  else if (isWord(first, 'role')) name = 'role';
  else {
    name = first.text.toLowerCase();
    // a.b custom settings
    for (let j = i + 1; t[j]?.text === '.' && t[j + 1]; j += 2) name += `.${t[j + 1].text}`;
  }
  if (SETTABLE.has(name)) return { kind: 'other' };
  // measured (psql, pgAdmin, Flyway against DSQL): `setting configuration parameter "x" not supported`
  return { kind: 'other', refusal: unsupported(`setting configuration parameter "${name}" not supported`) };
}

function classifyCopy(t: readonly Token[]): Classified {
  // COPY table [(cols)] FROM|TO {'file' | PROGRAM 'cmd' | STDIN | STDOUT}; COPY (query) TO ...
  let depth = 0;
  for (let j = 1; j < t.length; j++) {
    if (t[j].text === '(') depth++;
    else if (t[j].text === ')') depth--;
    else if (depth === 0 && isWord(t[j], 'from', 'to')) {
      const direction = t[j].text;
      const target = t[j + 1];
      if (isWord(target, 'program') || target?.type === 'string') {
        // inferred: DSQL's admin is not a superuser; PostgreSQL 16's answer to such a role.
        const what = isWord(target, 'program')
          ? 'an external program'
          : `${direction === 'to' ? 'to' : 'from'} a file`;
        const message = isWord(target, 'program')
          ? `permission denied to COPY to or from ${what}`
          : `permission denied to COPY ${what}`;
        return { kind: direction === 'from' ? 'dml' : 'other', refusal: { code: '42501', message } };
      }
      return { kind: direction === 'from' ? 'dml' : 'other' };
    }
  }
  return { kind: 'other' };
}

/** One statement's kind, and DSQL's refusal or translation of it. */
export function classify(s: Statement): Classified {
  const t = s.tokens;
  const verb = t[0];
  if (verb?.type !== 'word') return { kind: 'other' };
  const iam = iamGrant(t);
  if (iam) return { kind: 'other', rewritten: iam };
  switch (verb.text) {
    case 'begin':
    case 'start':
      return { kind: 'begin' };
    case 'commit':
    case 'end':
      return { kind: 'end', commit: true };
    case 'abort':
      return { kind: 'end' };
    case 'rollback':
      // ROLLBACK TO SAVEPOINT is a savepoint command, refused below with SAVEPOINT.
      if (isWord(t[1], 'to') || (isWord(t[1], 'work', 'transaction') && isWord(t[2], 'to'))) {
        return { kind: 'other', refusal: unsupported('unsupported statement: Savepoint') };
      }
      return { kind: 'end' };
    case 'savepoint':
    case 'release':
      // inferred: DSQL documents SAVEPOINT as unsupported.
      return { kind: 'other', refusal: unsupported('unsupported statement: Savepoint') };
    case 'do':
      // measured: 0A000 "unsupported statement: Do"
      return { kind: 'other', refusal: unsupported('unsupported statement: Do') };
    case 'truncate':
      // measured: 0A000 "unsupported statement: Truncate"
      return { kind: 'ddl', refusal: unsupported('unsupported statement: Truncate') };
    case 'vacuum':
      // inferred: DSQL documents VACUUM as unsupported (it needs none).
      return { kind: 'other', refusal: unsupported('unsupported statement: Vacuum') };
    case 'create':
      return classifyCreate(s);
    case 'alter':
      return classifyAlter(t);
    case 'set':
      return classifySet(t);
    case 'copy':
      return classifyCopy(t);
    case 'grant':
    case 'revoke': {
      // measured: GRANT USAGE ON SCHEMA public -> 0A000 "feature not supported on system entity"
      const on = findWord(t, 'on');
      const schema = on !== -1 && isWord(t[on + 1], 'schema');
      const system =
        schema &&
        t.slice(on + 2).some((x) => ['public', 'sys', 'pg_catalog', 'information_schema'].includes(x.text));
      if (system) return { kind: 'other', refusal: unsupported('feature not supported on system entity') };
      return { kind: 'other' };
    }
    case 'with':
      return { kind: t.some((x) => x.type === 'word' && DML_VERBS.has(x.text)) ? 'dml' : 'other' };
    default:
      if (DDL_VERBS.has(verb.text)) return { kind: 'ddl' };
      if (DML_VERBS.has(verb.text)) return { kind: 'dml' };
      return { kind: 'other' };
  }
}

/** What a transaction has run so far: DSQL allows one DDL statement, or DML, never both. */
export interface TransactionKinds {
  ddl: boolean;
  dml: boolean;
}

/** DSQL's refusal of `kind` in a transaction that has already run `so`, if any. */
export function transactionRule(so: TransactionKinds, kind: StatementKind): DsqlError | undefined {
  // measured: both messages, 0A000
  if (kind === 'ddl' && so.ddl) return unsupported('multiple ddl statements not supported in a transaction');
  if ((kind === 'ddl' && so.dml) || (kind === 'dml' && so.ddl)) {
    return unsupported('ddl and dml are not supported in the same transaction');
  }
  return undefined;
}

export function noteKind(so: TransactionKinds, kind: StatementKind): void {
  if (kind === 'ddl') so.ddl = true;
  if (kind === 'dml') so.dml = true;
}
