// dynalite, made to answer as DynamoDB does where the lab (or a client of the local cloud) can
// tell the difference: what the conformance suite (test/conformance/dynamodb.test.ts) found.
//   - ReturnValuesOnConditionCheckFailure: ALL_OLD puts the item that failed the condition in the
//     ConditionalCheckFailedException (dynalite drops the parameter). Without it the lab's create
//     needs a second request to tell its own retried write from a conflict, which AWS never sends.
//   - TransactWriteItems and TransactGetItems (dynalite has neither): all or nothing, with
//     TransactionCanceledException and CancellationReasons, one operation per item.
//   - An empty string or binary value for a secondary index key is refused with DynamoDB's
//     ValidationException (dynalite accepts it and leaves the item out of the index).
//   - Requests that crash or hang dynalite 4.0.0 get DynamoDB's 400 instead (section 4): a body
//     that is not a JSON object (`null` kills it), a null where an AttributeValue belongs (Item,
//     Key, ExpressionAttributeValues, BatchWriteItem/BatchGetItem requests), a null list member or
//     map value anywhere in a request (`{"RequestItems": {"t": [null]}}`), a TagResource tag
//     without Key or Value, an IN whose list names an attribute the item lacks (rewritten as the
//     ORed equalities it means), a begins_with on two attributes the item lacks (asked only where
//     the first exists), redundant parentheses, and DynamoDB's documented expression
//     limits (dynamodb-expression-limits.mjs), checked before any parser runs. The parsers
//     themselves are memoized (dynalite-packrat.mjs): nested conditions DynamoDB accepts parse in
//     linear time instead of exponential.
//   - An error nothing expected answers DynamoDB's 500 InternalServerError, and the engine goes on
//     (section 5; dynalite-server.mjs routes uncaught errors here).
// How: dynalite 4.0.0's own modules are patched where every action calls them (db.checkConditional,
// db.validateItem, db.updateIndexes; the actions look them up on the module at call time), and a
// front request handler serves the two transaction operations with dynalite's own validations,
// actions and store. Transactions run alone: each item request holds a shared gate, a transaction
// the exclusive one, so no request sees half a transaction. dynalite's version is pinned in
// package-lock.json; test/conformance/dynamodb.test.ts fails if an upgrade moves what this relies on.
//
// Why this and not DynamoDB Local as the default (which has all three right): DynamoDB Local
// starts several times slower, takes more engine CPU per request and more memory (compare them
// with `npm run bench -- --only-engines`), and needs Java 17, Maven and a native library it does
// not ship for linux-arm64. This layer costs nothing measurable (start-up and per-request p50 equal to plain
// dynalite's within noise).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { memoizeDynaliteParsers } from './dynalite-packrat.mjs';
import { expressionLimitError, expressionParameterSets } from './dynamodb-expression-limits.mjs';

const require = createRequire(import.meta.url);
const DIR = dirname(require.resolve('dynalite'));
// The same module instances dynalite's index.js loads (require's cache is keyed by file).
const dynalite = require(DIR);
const db = require(join(DIR, 'db'));
const validations = require(join(DIR, 'validations'));
const crc32 = require(require.resolve('buffer-crc32', { paths: [DIR] }));
const actions = {
  putItem: require(join(DIR, 'actions', 'putItem')),
  updateItem: require(join(DIR, 'actions', 'updateItem')),
  deleteItem: require(join(DIR, 'actions', 'deleteItem')),
  getItem: require(join(DIR, 'actions', 'getItem')),
};
const rules = {
  putItem: require(join(DIR, 'validations', 'putItem')),
  updateItem: require(join(DIR, 'validations', 'updateItem')),
  deleteItem: require(join(DIR, 'validations', 'deleteItem')),
  getItem: require(join(DIR, 'validations', 'getItem')),
};

const DDB = 'com.amazonaws.dynamodb.v20120810#';
const MAX_TRANSACT_ITEMS = 100;
// DynamoDB remembers a transaction's ClientRequestToken for 10 minutes.
const TOKEN_TTL_MS = 10 * 60 * 1000;

function serviceError(type, message, extra = {}) {
  const err = new Error(message);
  err.statusCode = 400;
  err.body = { __type: `${DDB}${type}`, message, ...extra };
  return err;
}

// ---- 1. ReturnValuesOnConditionCheckFailure --------------------------------------------------
// checkTypes drops parameters it has no type for, so the three actions learn this one first.
for (const action of ['putItem', 'updateItem', 'deleteItem']) {
  rules[action].types.ReturnValuesOnConditionCheckFailure = { type: 'String', enum: ['ALL_OLD', 'NONE'] };
}
const checkConditional = db.checkConditional;
db.checkConditional = (data, existingItem) => {
  const err = checkConditional(data, existingItem);
  // Read under the action's item lock: the item that failed the condition, never a later one.
  if (err && existingItem && data.ReturnValuesOnConditionCheckFailure === 'ALL_OLD')
    err.body.Item = existingItem;
  return err;
};

// ---- 2. Empty values for secondary index keys ------------------------------------------------
function emptyIndexKey(item, table) {
  return db.traverseIndexes(table, (attr, type, index) => {
    const value = item?.[attr]?.[type];
    if ((type === 'S' || type === 'B') && value === '') return { attr, index: index.IndexName };
  });
}
const validateItem = db.validateItem;
db.validateItem = (item, table) => {
  const invalid = validateItem(item, table);
  if (invalid) return invalid;
  const empty = emptyIndexKey(item, table);
  if (!empty) return undefined;
  return db.validationError(
    'One or more parameter values are not valid. A value specified for a secondary index key is not supported. ' +
      `The AttributeValue for a key attribute cannot contain an empty string value. IndexName: ${empty.index}, IndexKey: ${empty.attr}`,
  );
};
// Every write passes here just before it is stored; a Put was checked above, so what reaches this
// with an empty index key is an update's result.
const updateIndexes = db.updateIndexes;
db.updateIndexes = (store, table, existingItem, item, cb) => {
  if (item && emptyIndexKey(item, table)) {
    return cb(
      db.validationError(
        'One or more parameter values are not valid. The update expression attempted to update a secondary index key ' +
          'to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value.',
      ),
    );
  }
  return updateIndexes(store, table, existingItem, item, cb);
};

// ---- 3. Transactions -------------------------------------------------------------------------
let store;
const create = db.create;
db.create = (options) => {
  store = create(options);
  return store;
};

/** Shared for single requests, exclusive for a transaction; first come, first served. */
class Gate {
  queue = [];
  shared = 0;
  exclusive = false;
  /** Takes the shared side at once when nothing waits; else undefined (use acquire). */
  tryShared() {
    if (this.exclusive || this.queue.length > 0) return false;
    this.shared += 1;
    return true;
  }
  acquire(exclusive) {
    return new Promise((go) => {
      this.queue.push({ exclusive, go });
      this.pump();
    });
  }
  release(exclusive) {
    if (exclusive) this.exclusive = false;
    else this.shared -= 1;
    this.pump();
  }
  pump() {
    while (this.queue.length > 0 && !this.exclusive) {
      const next = this.queue[0];
      if (next.exclusive && this.shared > 0) return;
      this.queue.shift();
      if (next.exclusive) this.exclusive = true;
      else this.shared += 1;
      next.go();
    }
  }
}

const promisify =
  (fn) =>
  (...args) =>
    new Promise((resolve, reject) => fn(...args, (err, out) => (err ? reject(err) : resolve(out))));
const getTable = (name) => promisify(store.getTable)(name);
const readItem = (table, key) =>
  new Promise((resolve, reject) =>
    store.getItemDb(table).get(key, (err, item) => {
      if (err && err.name !== 'NotFoundError') reject(err);
      else resolve(err ? undefined : item);
    }),
  );
const run = (action, data) => promisify(actions[action])(store, data);

/** dynalite's own type and parameter checks for one operation inside a transaction. */
function checked(action, data) {
  const out = validations.checkTypes(data, rules[action].types);
  validations.checkValidations(out, rules[action].types, rules[action].custom, store);
  return out;
}

function transactItemsOf(body, allowed) {
  const items = body.TransactItems;
  if (!Array.isArray(items) || items.length === 0) {
    throw db.validationError(
      "1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null",
    );
  }
  if (items.length > MAX_TRANSACT_ITEMS) {
    throw db.validationError(
      `1 validation error detected: Value '[${items.length} items]' at 'transactItems' failed to satisfy constraint: ` +
        `Member must have length less than or equal to ${MAX_TRANSACT_ITEMS}`,
    );
  }
  return items.map((entry) => {
    const kinds = Object.keys(entry ?? {}).filter((k) => allowed.includes(k) && entry[k] != null);
    if (kinds.length !== 1) {
      throw db.validationError(
        `TransactItems can only contain one of ${allowed.join(', ')}; got ${kinds.length === 0 ? 'none' : kinds.join(', ')}`,
      );
    }
    return { kind: kinds[0], op: entry[kinds[0]] };
  });
}

const WRITE_ACTION = {
  Put: 'putItem',
  Update: 'updateItem',
  Delete: 'deleteItem',
  ConditionCheck: 'deleteItem',
};
const tokens = new Map();

async function transactWriteItems(body) {
  const entries = transactItemsOf(body, Object.keys(WRITE_ACTION));
  const prepared = [];
  const seen = new Set();
  for (const { kind, op } of entries) {
    if (kind === 'ConditionCheck' && !op.ConditionExpression) {
      throw db.validationError(
        "The parameter 'ConditionExpression' is required but was not present in the request",
      );
    }
    const data = checked(WRITE_ACTION[kind], { ...op });
    const table = await getTable(data.TableName);
    const keyItem = kind === 'Put' ? data.Item : data.Key;
    const invalid =
      kind === 'Put'
        ? db.validateItem(data.Item, table)
        : db.validateKey(data.Key, table) ||
          (kind === 'Update' ? db.validateUpdates(data.AttributeUpdates, data._updates, table) : undefined);
    if (invalid) throw invalid;
    const key = db.createKey(keyItem, table);
    const id = `${data.TableName}\u0000${key}`;
    if (seen.has(id))
      throw db.validationError('Transaction request cannot include multiple operations on one item');
    seen.add(id);
    prepared.push({ kind, data, table, key });
  }

  // An SDK retry of a transaction that was applied (same token, same request) changes nothing.
  const token = body.ClientRequestToken;
  const digest = createHash('sha256').update(JSON.stringify(body.TransactItems)).digest('hex');
  const now = Date.now();
  for (const [t, v] of tokens) if (v.expires < now) tokens.delete(t);
  if (token !== undefined && tokens.has(token)) {
    if (tokens.get(token).digest === digest) return {};
    throw serviceError(
      'IdempotentParameterMismatchException',
      'DynamoDB rejected the request because you retried a request with a different payload but with an idempotent token that was already used.',
    );
  }

  const before = await Promise.all(prepared.map((p) => readItem(p.data.TableName, p.key)));
  const reasons = prepared.map((p, i) => {
    const failed = db.checkConditional(p.data, before[i]);
    if (!failed) return { Code: 'None' };
    return {
      Code: 'ConditionalCheckFailed',
      Message: failed.body.message,
      ...(failed.body.Item ? { Item: failed.body.Item } : {}),
    };
  });
  if (reasons.some((r) => r.Code !== 'None')) throw cancelled(reasons);

  // The conditions hold and nothing else runs: apply each write without its condition.
  const applied = [];
  for (const [i, p] of prepared.entries()) {
    if (p.kind === 'ConditionCheck') continue;
    const write = { ...p.data, _condition: undefined, Expected: undefined };
    try {
      await run(WRITE_ACTION[p.kind], write);
      applied.push(i);
    } catch (err) {
      // An update whose result is invalid (its size, an index key): undo what was written.
      for (const j of applied.reverse()) {
        const q = prepared[j];
        if (before[j]) await run('putItem', { TableName: q.data.TableName, Item: before[j] });
        else await run('deleteItem', { TableName: q.data.TableName, Key: keyOf(q) });
      }
      if (!err.statusCode) throw err;
      throw cancelled(
        prepared.map((_, k) =>
          k === i ? { Code: 'ValidationError', Message: err.body.message } : { Code: 'None' },
        ),
      );
    }
  }
  if (token !== undefined) tokens.set(token, { digest, expires: now + TOKEN_TTL_MS });
  return {};
}

function keyOf({ kind, data, table }) {
  if (kind !== 'Put') return data.Key;
  return Object.fromEntries(table.KeySchema.map((k) => [k.AttributeName, data.Item[k.AttributeName]]));
}

function cancelled(reasons) {
  return serviceError(
    'TransactionCanceledException',
    `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
    { CancellationReasons: reasons },
  );
}

async function transactGetItems(body) {
  const entries = transactItemsOf(body, ['Get']);
  const gets = entries.map(({ op }) => checked('getItem', { ...op }));
  const responses = [];
  for (const data of gets) {
    const out = await run('getItem', data);
    responses.push(out.Item ? { Item: out.Item } : {});
  }
  return { Responses: responses };
}

// ---- 4. Requests that crash or hang dynalite -------------------------------------------------
// Each found by an outside conformance suite; without these the engine process dies (or spins)
// and every table it held in memory is lost. DynamoDB answers each with a 400.

const EMPTY_VALUE = 'Supplied AttributeValue is empty, must contain exactly one of the supported datatypes';
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A null or non-object where an AttributeValue belongs, at any depth of M and L. */
function badValue(value) {
  if (!isObject(value)) return true;
  if (isObject(value.M) && Object.values(value.M).some(badValue)) return true;
  if (Array.isArray(value.L) && value.L.some(badValue)) return true;
  return false;
}
const badMap = (map) => isObject(map) && Object.values(map).some(badValue);

/**
 * A null list member or map value in a request that passed dynalite's type checks, with the
 * message DynamoDB gives: an AttributeValue's own where one belongs, Coral's "must not be null"
 * elsewhere. dynalite keeps such nulls (it drops only null structure members, as Coral does) and
 * its validations then dereference them. `spec` is dynalite's type declaration for `value`.
 */
function nullMember(value, spec, path) {
  if (value == null || (typeof spec !== 'object' && typeof spec !== 'string')) return undefined;
  const children = typeof spec === 'string' ? undefined : spec.children;
  const typeName = typeof spec === 'string' ? spec : spec.type;
  const kind = /^(.+?)<.+>$/.exec(typeName)?.[1] ?? typeName;
  const childSpec = typeof children === 'string' ? { type: children } : children;
  const attrValue = typeof children === 'string' && children.startsWith('AttrStruct');
  const mustNotBeNull = (at) =>
    attrValue
      ? EMPTY_VALUE
      : `1 validation error detected: Value null at '${at}' failed to satisfy constraint: Member must not be null`;
  if (kind === 'AttrStruct') return nullInAttributeValue(value);
  if ((kind === 'List' || kind === 'ParameterizedList') && Array.isArray(value)) {
    for (const [i, member] of value.entries()) {
      const at = `${path}.${i + 1}.member`;
      if (member == null) return mustNotBeNull(at);
      const inner = childSpec && nullMember(member, childSpec, at);
      if (inner) return inner;
    }
  } else if ((kind === 'Map' || kind === 'ParameterizedMap') && isObject(value)) {
    for (const [key, member] of Object.entries(value)) {
      const at = `${path}.${key}.member`;
      if (member == null) return mustNotBeNull(at);
      const inner = childSpec && nullMember(member, childSpec, at);
      if (inner) return inner;
    }
  } else if ((kind === 'ValueStruct' || kind === 'FieldStruct') && isObject(value) && isObject(children)) {
    return nullInStruct(value, children, path);
  }
  return undefined;
}

/** An AttributeValue with a null inside a set, list or map. */
function nullInAttributeValue(value) {
  if (!isObject(value)) return undefined;
  for (const set of ['SS', 'NS', 'BS']) {
    if (Array.isArray(value[set]) && value[set].some((v) => v == null)) return EMPTY_VALUE;
  }
  if (Array.isArray(value.L)) {
    for (const v of value.L) if (v == null || nullInAttributeValue(v)) return EMPTY_VALUE;
  }
  if (isObject(value.M)) {
    for (const v of Object.values(value.M)) if (v == null || nullInAttributeValue(v)) return EMPTY_VALUE;
  }
  return undefined;
}

function nullInStruct(data, types, path) {
  for (const [field, spec] of Object.entries(types)) {
    const name = `${field[0].toLowerCase()}${field.slice(1)}`;
    const at = path ? `${path}.${name}` : name;
    const found = nullMember(data[field], spec, at);
    if (found) return found;
  }
  return undefined;
}

// Every action, and each operation of a transaction, has its parameters type-checked here first.
const checkTypes = validations.checkTypes;
validations.checkTypes = (data, types) => {
  const out = checkTypes(data, types);
  const found = nullInStruct(out, types, '');
  if (found) throw db.validationError(found);
  return out;
};

// DynamoDB stores a document at most 32 levels deep: 31 list or map wraps above a scalar
// (Constraints.html, "Nested attribute depth"). A deeper value is refused up front with this
// message (as DynamoDB words it; nubo-db/dynoxide#110 quotes it from eu-west-2); checked without
// recursion, before anything that recurses (dynalite's own checks would overflow the stack).
const MAX_WRAPS = 31;
const TOO_DEEP =
  'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit';

/** Every map of AttributeValues a request carries, its transaction items' and batches' included. */
function attributeMaps(body) {
  const maps = [];
  const add = (params) => {
    if (!isObject(params)) return;
    for (const field of ['Item', 'Key', 'ExclusiveStartKey', 'ExpressionAttributeValues'])
      maps.push(params[field]);
    if (Array.isArray(params.Keys)) for (const key of params.Keys) maps.push(key);
    // The legacy parameters: AttributeUpdates' values, and the conditions' values and lists.
    for (const field of ['AttributeUpdates', 'Expected', 'ScanFilter', 'QueryFilter', 'KeyConditions']) {
      if (!isObject(params[field])) continue;
      for (const entry of Object.values(params[field])) {
        if (!isObject(entry)) continue;
        maps.push({ Value: entry.Value });
        if (Array.isArray(entry.AttributeValueList)) maps.push(entry.AttributeValueList);
      }
    }
  };
  add(body);
  if (Array.isArray(body.TransactItems)) {
    for (const entry of body.TransactItems)
      if (isObject(entry)) for (const op of Object.values(entry)) add(op);
  }
  if (isObject(body.RequestItems)) {
    for (const table of Object.values(body.RequestItems)) {
      if (!Array.isArray(table)) {
        add(table);
        continue;
      }
      for (const r of table) {
        if (!isObject(r)) continue;
        add(r.PutRequest);
        add(r.DeleteRequest);
      }
    }
  }
  return maps.filter((m) => isObject(m) || Array.isArray(m));
}

function tooDeep(body) {
  const stack = attributeMaps(body).flatMap((map) => Object.values(map).map((value) => [value, 0]));
  while (stack.length > 0) {
    const [value, wraps] = stack.pop();
    if (!isObject(value)) continue;
    const inner = Array.isArray(value.L) ? value.L : isObject(value.M) ? Object.values(value.M) : undefined;
    if (!inner) continue;
    if (wraps + 1 > MAX_WRAPS) return TOO_DEEP;
    for (const v of inner) stack.push([v, wraps + 1]);
  }
  return undefined;
}

/** The first AttributeValue position of a request that would crash dynalite, as DynamoDB's message. */
function nullAttributeValue(body) {
  if (badMap(body.Item) || badMap(body.Key) || badMap(body.ExpressionAttributeValues)) return EMPTY_VALUE;
  if (badMap(body.ExclusiveStartKey)) return EMPTY_VALUE;
  if (isObject(body.RequestItems)) {
    for (const requests of Object.values(body.RequestItems)) {
      if (Array.isArray(requests)) {
        for (const r of requests) {
          if (isObject(r) && (badMap(r.PutRequest?.Item) || badMap(r.DeleteRequest?.Key))) return EMPTY_VALUE;
        }
      } else if (isObject(requests) && Array.isArray(requests.Keys) && requests.Keys.some(badMap)) {
        return EMPTY_VALUE;
      }
    }
  }
  return undefined;
}

/** TagResource: each tag needs its Key and Value, in DynamoDB's (Coral's) words. */
function badTag(body) {
  if (!Array.isArray(body.Tags)) return undefined;
  for (const [i, tag] of body.Tags.entries()) {
    for (const field of ['Key', 'Value']) {
      if (!isObject(tag) || typeof tag[field] !== 'string')
        return `1 validation error detected: Value null at 'tags.${i + 1}.member.${field.toLowerCase()}' failed to satisfy constraint: Member must not be null`;
    }
  }
  return undefined;
}

const EXPRESSIONS = [
  'ConditionExpression',
  'FilterExpression',
  'KeyConditionExpression',
  'UpdateExpression',
  'ProjectionExpression',
];

/**
 * DynamoDB refuses a pair of parentheses directly around another pair: `((a = :v))`. Checked
 * before dynalite's parser, which backtracks for minutes on ~2,000 of them.
 */
function redundantParentheses(text) {
  const open = [];
  const pairs = new Map(); // open index -> close index
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') open.push(i);
    else if (text[i] === ')' && open.length > 0) pairs.set(open.pop(), i);
  }
  const next = (i, step) => {
    let j = i + step;
    while (j >= 0 && j < text.length && /\s/.test(text[j])) j += step;
    return j;
  };
  for (const [o, c] of pairs) {
    const innerOpen = next(o, 1);
    if (text[innerOpen] === '(' && pairs.get(innerOpen) === next(c, -1)) return true;
  }
  return false;
}

/** The 400 a request gets before it reaches dynalite, or undefined when it may pass. */
function guard(body) {
  if (!isObject(body)) return { __type: 'com.amazon.coral.service#SerializationException' };
  const invalid = (message) => ({ __type: 'com.amazon.coral.validate#ValidationException', message });
  const deep = tooDeep(body);
  if (deep) return invalid(deep);
  const attr = nullAttributeValue(body);
  if (attr) return invalid(attr);
  const tag = badTag(body);
  if (tag) return invalid(tag);
  for (const params of expressionParameterSets(body)) {
    const limit = expressionLimitError(params);
    if (limit) return invalid(limit);
  }
  for (const name of EXPRESSIONS) {
    if (typeof body[name] === 'string' && redundantParentheses(body[name]))
      return invalid(`Invalid ${name}: The expression has redundant parentheses;`);
  }
  return undefined;
}

// `a IN (b, c)` means `a = b OR a = c`; dynalite's IN dereferences a missing b and throws. The
// parsed tree is rewritten once validation has built it (the actions call this module property).
// `begins_with(a, b)` is false where the item lacks `a` (DynamoDB's answer); dynalite compares two
// missing operands as equal types and throws reading the first (found by test/fuzz), so it is
// asked only where `a` exists.
function rewriteIn(node) {
  if (!isObject(node)) return node;
  if ((node.type === 'in' || node.type === 'IN') && Array.isArray(node.args) && node.args.length > 1) {
    const [lhs, ...list] = node.args;
    return list
      .map((v) => ({ type: '=', args: [lhs, v] }))
      .reduce((acc, eq) => ({ type: 'or', args: [acc, eq] }));
  }
  if (node.type === 'function' && node.name === 'begins_with' && Array.isArray(node.args)) {
    const exists = { type: 'function', name: 'attribute_exists', args: [node.args[0]], attrType: 'BOOL' };
    return { type: 'and', args: [exists, node] };
  }
  if (['and', 'or', 'not'].includes(node.type) && Array.isArray(node.args))
    node.args = node.args.map(rewriteIn);
  return node;
}
memoizeDynaliteParsers();

const validateExpressions = validations.validateExpressions;
validations.validateExpressions = (data) => {
  const msg = validateExpressions(data);
  if (msg) return msg;
  for (const key of ['_filter', '_condition']) {
    if (data[key]?.expression) data[key].expression = rewriteIn(data[key].expression);
  }
  return msg;
};

// ---- 5. Errors nothing expected -------------------------------------------------------------
// dynalite throws from stream and store callbacks, where no caller can catch it. Each request runs
// in its own async context, so the process's uncaught-error handler (dynalite-server.mjs) finds the
// response the error belongs to and answers DynamoDB's 500; the engine and its tables go on.
const inFlight = new AsyncLocalStorage();
const INTERNAL = { __type: `${DDB}InternalServerError`, message: 'Internal server error' };

/**
 * Answers the request an uncaught error came from with DynamoDB's InternalServerError. True when
 * the error belonged to a request (answered now, or already answered); false when it came from
 * outside any request.
 */
export function answerUncaught() {
  const exchange = inFlight.getStore();
  if (!exchange) return false;
  const { req, res } = exchange;
  if (!res.headersSent && !res.destroyed) send(req, res, 500, INTERNAL);
  else if (!res.writableEnded) res.destroy();
  return true;
}

const TRANSACTIONS = {
  'DynamoDB_20120810.TransactWriteItems': transactWriteItems,
  'DynamoDB_20120810.TransactGetItems': transactGetItems,
};

function requestId() {
  // DynamoDB's request ids: 52 characters, upper-case letters and digits (as dynalite makes them).
  return randomBytes(39).toString('base64').toUpperCase().replace(/[+/=]/g, '0');
}

function send(req, res, status, data) {
  const body = JSON.stringify(data);
  res.statusCode = status;
  res.setHeader('x-amzn-RequestId', requestId());
  res.setHeader('x-amz-crc32', crc32.unsigned(body));
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim();
  res.setHeader('Content-Type', type === 'application/x-amz-json-1.0' ? type : 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** The request again, its body already read: what dynalite's handler reads from. */
function replayOf(req) {
  const replay = new PassThrough();
  replay.headers = req.headers;
  replay.method = req.method;
  replay.url = req.url;
  replay.socket = req.socket;
  replay.connection = req.socket;
  return replay;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function serveTransaction(operation, gate, req, res) {
  const text = await readBody(req);
  const auth = req.headers.authorization ?? '';
  if (!auth.trim().startsWith('AWS4-')) {
    return send(req, res, 400, {
      __type: 'com.amazon.coral.service#MissingAuthenticationTokenException',
      message: 'Request is missing Authentication Token',
    });
  }
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return send(req, res, 400, { __type: 'com.amazon.coral.service#SerializationException' });
  }
  const refused = guard(body);
  if (refused) return send(req, res, 400, refused);
  await gate.acquire(true);
  try {
    send(req, res, 200, await operation(body));
  } catch (err) {
    if (err.statusCode) send(req, res, err.statusCode, err.body);
    else {
      console.error(`dynalite: internal error in ${operation.name}: ${err.stack ?? err}`);
      send(req, res, 500, INTERNAL);
    }
  } finally {
    gate.release(true);
  }
}

/** A dynalite server (same options) that answers as described above. */
export function conformingDynalite(options) {
  const server = dynalite(options);
  const [inner] = server.listeners('request');
  server.removeAllListeners('request');
  const gate = new Gate();
  server.on('request', (req, res) => inFlight.run({ req, res }, () => serve(req, res)));
  function serve(req, res) {
    const operation = TRANSACTIONS[req.headers['x-amz-target']];
    if (operation) {
      serveTransaction(operation, gate, req, res).catch((err) => {
        console.error(`dynalite: internal error: ${err.stack ?? err}`);
        if (!res.headersSent) send(req, res, 500, INTERNAL);
      });
      return;
    }
    readBody(req).then(answer, () => res.destroy());
    function answer(text) {
      try {
        pass(text);
      } catch (err) {
        console.error(`dynalite: internal error: ${err?.stack ?? err}`);
        if (!res.headersSent && !res.destroyed) send(req, res, 500, INTERNAL);
      }
    }
    function pass(text) {
      // Only a body that parses is checked here: dynalite answers unparseable ones itself.
      let body;
      try {
        body = text === '' ? {} : JSON.parse(text);
      } catch {
        body = {};
      }
      const refused = req.method === 'POST' ? guard(body) : undefined;
      if (refused) return send(req, res, 400, refused);
      const replay = replayOf(req);
      const relay = () => {
        // A client that left while the request waited: its 'close' has been and gone.
        if (res.destroyed || req.socket.destroyed) return gate.release(false);
        res.once('close', () => gate.release(false));
        inner(replay, res);
        replay.end(text);
      };
      if (gate.tryShared()) relay();
      else gate.acquire(false).then(relay);
    }
  }
  return server;
}
