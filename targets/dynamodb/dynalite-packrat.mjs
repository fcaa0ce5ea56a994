// dynalite's expression parsers, memoized (packrat parsing): each rule is tried at most once per
// position. dynalite 4.0.0 ships parsers PEG.js 0.10 generated without its `--cache` option, and its
// condition grammar tries `And OR Or` before falling back to `And`, re-parsing the same text at each
// level: `a<b or (a<b or (...))` costs about 4x per level, so a condition DynamoDB accepts (149 levels,
// 299 operators) would spin for longer than anyone waits. With the memo the parse is linear.
//
// How: the generated source is loaded again with each rule function renamed `<rule>$raw` and a
// wrapper of the rule's name that looks up (rule, position) first, as PEG.js's own `--cache` does
// inline; the key also holds whether failures are silent then, so a syntax error lists the same
// expected tokens as without the memo. The grammar's actions only record the first error of each kind and
// resolve names, so running one once instead of again at the same position changes no answer.
// The parsers' `parse` is replaced on the module dynalite's validations already hold.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const DIR = dirname(require.resolve('dynalite'));
const PARSERS = ['conditionParser', 'projectionParser', 'updateParser'];
const RULE = /^ {2}function (peg\$parse[A-Za-z_]+)\(\) \{$/gm;
const START = '\n  peg$result = peg$startRuleFunction();';

/** The generated parser's source with a memo around every rule; throws if the shape moved. */
export function memoizedSource(source) {
  const rules = [...source.matchAll(RULE)].map((m) => m[1]);
  if (rules.length === 0 || !source.includes(START) || !source.includes('var peg$FAILED = {},'))
    throw new Error('dynalite-packrat: the parser is not the PEG.js 0.10 output this patch expects');
  const wrappers = rules
    .map(
      (rule, i) =>
        `  function ${rule}() {\n` +
        `    var key = (peg$currPos * ${rules.length} + ${i}) * 2 + (peg$silentFails > 0 ? 1 : 0), cached = peg$memo.get(key);\n` +
        '    if (cached) { peg$currPos = cached.nextPos; return cached.result; }\n' +
        `    var result = ${rule}$raw();\n` +
        '    peg$memo.set(key, { nextPos: peg$currPos, result: result });\n' +
        '    return result;\n' +
        '  }\n',
    )
    .join('');
  return source
    .replace(RULE, (_, rule) => `  function ${rule}$raw() {`)
    .replace('var peg$FAILED = {},', 'var peg$FAILED = {}, peg$memo = new Map(),')
    .replace(START, `\n${wrappers}${START}`);
}

/** Replaces `parse` on each of dynalite's parser modules with its memoized twin. */
export function memoizeDynaliteParsers() {
  for (const name of PARSERS) {
    const file = join(DIR, 'db', `${name}.js`);
    const loaded = require(file);
    const module = { exports: {} };
    new Function('module', 'exports', memoizedSource(readFileSync(file, 'utf8')))(module, module.exports);
    loaded.parse = module.exports.parse;
  }
}
