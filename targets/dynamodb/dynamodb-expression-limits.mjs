// DynamoDB's documented expression limits, checked on the request as sent, before any parser sees
// it (the Developer Guide, "Constraints in Amazon DynamoDB", Expression parameters:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-expression-parameters):
//   - any expression string is at most 4 KB (4,096 bytes, counted as sent);
//   - an expression attribute name or value placeholder (`#name`, `:val`) is at most 255 bytes;
//   - all substitution variables (ExpressionAttributeNames and ExpressionAttributeValues) at most 2 MB;
//   - at most 300 operators or functions in an expression;
//   - at most 100 operands for the IN comparator.
// The messages are DynamoDB's as clients have quoted them (see test/conformance/dynamodb-limits.test.ts).
// Plain JS: dynalite-conformance.mjs runs under plain node.

const EXPRESSIONS = [
  'UpdateExpression',
  'ConditionExpression',
  'KeyConditionExpression',
  'FilterExpression',
  'ProjectionExpression',
];
export const MAX_EXPRESSION_BYTES = 4096;
export const MAX_PLACEHOLDER_BYTES = 255;
export const MAX_SUBSTITUTION_BYTES = 2 * 1024 * 1024;
export const MAX_OPERATORS = 300;
export const MAX_IN_OPERANDS = 100;

const LOGICAL = new Set(['and', 'or', 'not', 'in']);
// One sticky pattern, tried at each position: whitespace, a word (attribute name, placeholder,
// keyword or function name), a comparator, or any one other character.
const TOKEN = /(\s+)|([#:]?[A-Za-z0-9_]+)|(<>|<=|>=|=|<|>)|([\s\S])/y;

/** The expression's tokens, as far as counting needs them. Linear, no backtracking. */
function tokens(text) {
  const out = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    if (m[2] !== undefined) out.push({ kind: 'word', text: m[2] });
    else if (m[3] !== undefined) out.push({ kind: 'comparator', text: m[3] });
    else if (m[4] !== undefined) out.push({ kind: 'punct', text: m[4] });
    if (TOKEN.lastIndex >= text.length) break;
  }
  return out;
}

/**
 * Operators as DynamoDB counts them: in conditions the comparators and AND/OR/NOT/IN (a BETWEEN
 * counts once, through its AND; function calls do not count), in an update `+`, `-` and
 * functions ("SET a = :val1 + :val2 + :val3 contains two + operators").
 */
function operatorCount(name, list) {
  let count = 0;
  for (const [i, t] of list.entries()) {
    if (name === 'UpdateExpression') {
      if (t.kind === 'punct' && (t.text === '+' || t.text === '-')) count += 1;
      else if (t.kind === 'word' && list[i + 1]?.text === '(') count += 1;
    } else if (t.kind === 'comparator') count += 1;
    else if (t.kind === 'word' && LOGICAL.has(t.text.toLowerCase())) count += 1;
  }
  return count;
}

/** The largest operand list of an IN in the expression. */
function inOperands(list) {
  let most = 0;
  for (const [i, t] of list.entries()) {
    if (t.kind !== 'word' || t.text.toLowerCase() !== 'in' || list[i + 1]?.text !== '(') continue;
    let depth = 0;
    let operands = 1;
    for (let j = i + 1; j < list.length; j++) {
      if (list[j].text === '(') depth += 1;
      else if (list[j].text === ')') {
        depth -= 1;
        if (depth === 0) break;
      } else if (list[j].text === ',' && depth === 1) operands += 1;
    }
    most = Math.max(most, operands);
  }
  return most;
}

const bytes = (s) => Buffer.byteLength(s, 'utf8');

function placeholderLimit(params) {
  let total = 0;
  for (const field of ['ExpressionAttributeNames', 'ExpressionAttributeValues']) {
    const map = params[field];
    if (typeof map !== 'object' || map === null || Array.isArray(map)) continue;
    for (const key of Object.keys(map)) {
      if (bytes(key) > MAX_PLACEHOLDER_BYTES) {
        return `${field} contains invalid key: The expression attribute map contains a key that is too long; size of key: ${bytes(key)}`;
      }
    }
    total += bytes(JSON.stringify(map));
    if (total > MAX_SUBSTITUTION_BYTES) return `${field} exceeds max size`;
  }
  return undefined;
}

/**
 * The ValidationException message for the first limit one operation's parameters break (an
 * operation's own: a transaction item or a BatchGetItem table's are checked one by one), or
 * undefined. Size first: DynamoDB names the size of an over-long expression before its syntax.
 */
export function expressionLimitError(params) {
  if (typeof params !== 'object' || params === null) return undefined;
  for (const name of EXPRESSIONS) {
    const text = params[name];
    if (typeof text === 'string' && bytes(text) > MAX_EXPRESSION_BYTES) {
      return `Invalid ${name}: Expression size has exceeded the maximum allowed size; expression size: ${bytes(text)}`;
    }
  }
  const placeholders = placeholderLimit(params);
  if (placeholders) return placeholders;
  for (const name of EXPRESSIONS) {
    const text = params[name];
    if (typeof text !== 'string') continue;
    const list = tokens(text);
    if (operatorCount(name, list) > MAX_OPERATORS) {
      return `Invalid ${name}: The expression contains too many operators; operator count: ${MAX_OPERATORS + 1}`;
    }
    const operands = inOperands(list);
    if (operands > MAX_IN_OPERANDS) {
      return `Invalid ${name}: The IN operator is provided with too many operands; number of operands: ${operands}`;
    }
  }
  return undefined;
}

/** Every set of expression parameters a request carries: its own, its transaction items', its tables'. */
export function expressionParameterSets(body) {
  const sets = [body];
  if (Array.isArray(body.TransactItems)) {
    for (const entry of body.TransactItems) {
      if (typeof entry !== 'object' || entry === null) continue;
      for (const op of Object.values(entry)) if (typeof op === 'object' && op !== null) sets.push(op);
    }
  }
  if (typeof body.RequestItems === 'object' && body.RequestItems !== null) {
    for (const table of Object.values(body.RequestItems)) {
      if (typeof table === 'object' && table !== null && !Array.isArray(table)) sets.push(table);
    }
  }
  return sets;
}
