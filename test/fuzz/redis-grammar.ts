/**
 * What a client sends the lab's Redis over TLS, as fast-check arbitraries: RESP commands (arrays
 * of bulk strings) from the commands the redis target uses and their neighbours, with wrong
 * arities, types and numbers, Lua through EVAL, commands a hosted Redis refuses (SHUTDOWN,
 * DEBUG), inline commands, and frames that break the protocol (negative or huge lengths, a
 * missing CRLF, unbalanced quotes, bytes that are no command at all). Writes name only `fuzz:`
 * keys; the fixture's keys are read, never written.
 *
 * https://redis.io/docs/latest/develop/reference/protocol-spec/
 * https://upstash.com/docs/redis/overall/rediscompatibility
 */
import fc from 'fast-check';

export const KEEP_KEY = 'keep:1';
export const KEEP_VALUE = 'kept value';

const fuzzKey = fc.constantFrom('fuzz:s', 'fuzz:h', 'fuzz:l', 'fuzz:z', 'fuzz:n');
const readKey = fc.oneof(fuzzKey, fc.constant(KEEP_KEY));
const number = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.constantFrom(
    '9223372036854775807',
    '-9223372036854775808',
    '1e3',
    'nan',
    'inf',
    '-inf',
    '0x10',
    '',
    '1.5',
  ),
);
const text = fc.oneof(fc.string({ maxLength: 16 }), fc.string({ maxLength: 16, unit: 'binary' }));
const arg = fc.oneof(text, number);

const LUA = [
  'return 1',
  "return redis.call('GET', KEYS[1])",
  "return redis.call('SET', KEYS[1], ARGV[1])",
  "return redis.call('INCRBY', KEYS[1], ARGV[1])",
  "return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])",
  "return redis.call('NOPE')",
  "return redis.pcall('GET')",
  'return {1, 2, {3, "x"}}',
  'return nil',
  "error('boom')",
  'return 1 +',
  'local t = {} for i = 1, 100 do t[i] = i end return #t',
];

/** A command as its words; writes go to fuzz keys only. */
const command: fc.Arbitrary<readonly string[]> = fc.oneof(
  fc.tuple(readKey).map(([k]) => ['GET', k]),
  fc
    .tuple(
      fuzzKey,
      arg,
      fc.constantFrom([], ['EX', '10'], ['PX', '0'], ['NX'], ['XX', 'GET'], ['EX', '-1'], ['KEEPTTL']),
    )
    .map(([k, v, opts]) => ['SET', k, v, ...opts]),
  fc
    .tuple(
      fc.constantFrom('INCR', 'DECR', 'STRLEN', 'TTL', 'PTTL', 'TYPE', 'EXISTS', 'HGETALL', 'ZCARD'),
      readKey,
    )
    .map(([c, k]) => [c, k]),
  fc
    .tuple(
      fc.constantFrom('INCRBY', 'DECRBY', 'INCRBYFLOAT', 'APPEND', 'EXPIRE', 'PEXPIRE', 'GETSET'),
      fuzzKey,
      arg,
    )
    .map(([c, k, v]) => [c, k, v]),
  fc
    .tuple(fuzzKey, fc.array(fc.tuple(arg, arg), { maxLength: 3 }))
    .map(([k, kv]) => ['HSET', k, ...kv.flat()]),
  fc.tuple(fuzzKey, fc.array(arg, { maxLength: 4 })).map(([k, vs]) => ['LPUSH', k, ...vs]),
  fc.tuple(readKey, number, number).map(([k, a, b]) => ['LRANGE', k, a, b]),
  fc
    .tuple(fuzzKey, fc.array(fc.tuple(number, arg), { maxLength: 3 }))
    .map(([k, sm]) => ['ZADD', k, ...sm.flat()]),
  fc
    .tuple(readKey, number, number, fc.constantFrom([], ['WITHSCORES'], ['REV'], ['BYSCORE'], ['LIMIT', '0']))
    .map(([k, a, b, o]) => ['ZRANGE', k, a, b, ...o]),
  fc.tuple(fuzzKey, number, arg).map(([k, by, m]) => ['ZINCRBY', k, by, m]),
  fc
    .tuple(fuzzKey, fc.integer({ min: 0, max: 64 }).map(String), arg)
    .map(([k, off, v]) => ['SETRANGE', k, off, v]),
  fc.tuple(readKey, number, number).map(([k, a, b]) => ['GETRANGE', k, a, b]),
  fc
    .tuple(
      fc.constantFrom(...LUA),
      fc.integer({ min: -1, max: 3 }),
      fc.array(fuzzKey, { maxLength: 2 }),
      fc.array(arg, { maxLength: 2 }),
    )
    .map(([script, n, keys, args]) => ['EVAL', script, String(n), ...keys, ...args]),
  fc
    .tuple(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 }), fuzzKey)
    .map(([sha, k]) => ['EVALSHA', sha, '1', k]),
  fc.constantFrom(
    ['PING'],
    ['PING', 'hello'],
    ['ECHO'],
    ['HELLO', '3'],
    ['HELLO', '2'],
    ['HELLO', '4'],
    ['CLIENT', 'SETNAME', 'fuzz'],
    ['CLIENT', 'INFO'],
    ['SELECT', '1'],
    ['SELECT', '99'],
    ['DBSIZE'],
    ['TIME'],
    ['MULTI'],
    ['EXEC'],
    ['DISCARD'],
    ['WATCH', 'fuzz:s'],
    ['SCAN', '0', 'MATCH', 'fuzz:*'],
    ['QUIT'],
    ['SHUTDOWN'],
    ['SHUTDOWN', 'NOSAVE'],
    ['DEBUG', 'SEGFAULT'],
    ['DEBUG', 'SLEEP', '0'],
    ['AUTH', 'default', 'wrong'],
    ['AUTH'],
  ),
  fc.array(arg, { minLength: 1, maxLength: 4 }),
);

const bulk = (s: string) => {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([Buffer.from(`$${b.length}\r\n`), b, Buffer.from('\r\n')]);
};
/** RESP's array of bulk strings: what every client library sends. */
export const resp = (words: readonly string[]): Buffer =>
  Buffer.concat([Buffer.from(`*${words.length}\r\n`), ...words.map(bulk)]);

/** A frame that is not a well-formed command. */
const brokenFrame = fc
  .oneof(
    fc.constantFrom(
      '*-1\r\n',
      '*0\r\n',
      '*1048577\r\n',
      '*2\r\n$-5\r\nx\r\n',
      '*1\r\n$536870913\r\n',
      '*1\r\n$3\r\nGETX\r\n',
    ),
    fc.constantFrom(
      '*1\r\n$4\r\nPING',
      '*1\r\n+PING\r\n',
      '*abc\r\n',
      '$3\r\nGET\r\n',
      ':1\r\n',
      '*1\n$4\nPING\n',
    ),
    fc.constantFrom('PING\r\n', 'GET "unbalanced\r\n', "SET 'a b\r\n", 'GET \\x\r\n', '\r\n\r\n', ' \r\n'),
    fc
      .tuple(fc.integer({ min: -3, max: 2_000_000_000 }), fc.string({ maxLength: 6 }))
      .map(([n, s]) => `*1\r\n$${n}\r\n${s}\r\n`),
    fc.uint8Array({ minLength: 1, maxLength: 24 }).map((b) => Buffer.from(b).toString('latin1')),
  )
  .map((s) => Buffer.from(s, 'latin1'));

/** One connection: its TLS version, AUTH first or not, then commands and broken frames. */
export interface RespInput {
  /** AWS endpoints, and the lab's TLS fronts, take both. */
  readonly tls: 'TLSv1.2' | 'TLSv1.3';
  readonly auth: boolean;
  readonly frames: readonly Buffer[];
}

export const respInput: fc.Arbitrary<RespInput> = fc.record({
  tls: fc.constantFrom('TLSv1.2' as const, 'TLSv1.3' as const),
  // Three in four log in first; the rest meet NOAUTH.
  auth: fc.constantFrom(true, true, true, false),
  frames: fc.array(
    fc.oneof({ weight: 3, arbitrary: command.map(resp) }, { weight: 1, arbitrary: brokenFrame }),
    {
      minLength: 1,
      maxLength: 5,
    },
  ),
});
