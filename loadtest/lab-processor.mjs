// @ts-check
/**
 * The Artillery processor shared by the lab's scenarios (<operation>-person.yml: create, get,
 * overwrite, update, query, put10, view, top10; each run for every target that serves the
 * operation). ESM (.mjs) because artillery 2.0.21 imports `.mjs` processors with import() and `require()`s anything else, and faker 10 is ESM-only; a `.ts` processor
 * would be bundled to CommonJS `.js`, which this "type": "module" package cannot require.
 * Types for TypeScript callers live in lab-processor.d.mts.
 *
 * Everything a remote worker needs travels with the script: scenario variables and payload
 * files (artillery-runner.ts writes both), never this machine's files. What the summary needs
 * goes back as Artillery custom metrics (core/lab-metrics.mjs).
 *
 * Scenario variables: labTarget (a target), labPhase (the operation), basePath, closedLoopS,
 *   labKeepAlive (variant label on|off; default: read from the base path), labMemoryMb (the
 *   phase's function memory, recorded in each timing line), labRatePerS (an open loop's rate,
 *   reported as its shape), labSigv4Region (sign every request with SigV4 for execute-api in this
 *   region: the API uses IAM authorization).
 * Payload variables (CSV files the runner ships with the script):
 *   govId        the GovId of a get, overwrite, update or view user (one row per user)
 *   labGovIds    every GovId of the same file (loadAll): what a closed loop walks and picks draw from
 *   labPickSeed  get, overwrite, update, view: every request names a GovId of labGovIds picked
 *                uniformly at random, from a generator seeded with this number and the Artillery
 *                worker (repeatable); absent: the payload's, then a walk of the list
 * Local detail (environment; a remote worker has neither):
 *   LAB_TIMINGS_FILE   append one JSON line per response (labels + status + client ms + timing)
 *   LAB_GOVIDS_FILE    create: append each GovId answered 201, one per line (a one-column CSV
 *                      the next phases get as their payload)
 *   LAB_GOVID_PREFIX   prefix of generated GovIds (default: lab-<base36 time>-)
 *   LAB_SIGV4_ACCESS_KEY_ID / LAB_SIGV4_SECRET_ACCESS_KEY  the local lab's caller; unset: the
 *                      AWS default chain (AWS_PROFILE, SSO, a worker's role, ...)
 *   LAB_KEEPALIVE, LAB_MEMORY_MB, LAB_SIGV4_REGION  fallbacks of the variables above
 *
 * Open and closed loop, one scenario each: every flow is a `loop` whose `whileTrue` is
 * keepLooping. Artillery tests whileTrue only after an iteration, so with closedLoopS 0 (open
 * loop, the default) each virtual user sends one request; with closedLoopS > 0 (the runner's
 * --parallel: N users arriving at once) each user sends its next request as soon as the last one
 * answered, until closedLoopS seconds after the first user of this worker started.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { faker } from '@faker-js/faker/locale/en';
import { InFlight, METRIC, responseMetrics } from '../core/lab-metrics.mjs';
import { seededUniform } from '../core/seeded-uniform.mjs';
import { GOV_ID_PATTERN, timingOfBody } from '../core/timing.mjs';
import { signRequest as sigv4 } from '../local/auth/sigv4-signer.mjs';

export const GOV_ID_TYPES = ['Driver License', 'Passport', 'SSN'];

const GOV_ID_RANDOM_CHARS = 16;
const MAX_ADDRESS = 200;

/** @param {string | undefined} prefix */
export function govIdPrefix(prefix) {
  const value = prefix ?? `lab-${Date.now().toString(36)}-`;
  // Fail at load, not with a stream of 400s: the prefix must leave room for the random part.
  if (value.length > 64 - GOV_ID_RANDOM_CHARS || !GOV_ID_PATTERN.test(`${value}x`)) {
    throw new Error(`LAB_GOVID_PREFIX must be at most 48 of [A-Za-z0-9_-], got ${JSON.stringify(value)}`);
  }
  return value;
}

const PREFIX = govIdPrefix(process.env.LAB_GOVID_PREFIX);

/**
 * A realistic Person with a GovId unique per call (16 random alphanumerics: 62^16 values).
 * @param {string} [prefix]
 * @returns {import('./lab-processor.d.mts').LabPerson}
 */
export function buildPerson(prefix = PREFIX) {
  return {
    GovId: `${prefix}${faker.string.alphanumeric(GOV_ID_RANDOM_CHARS)}`,
    FirstName: faker.person.firstName(),
    LastName: faker.person.lastName(),
    DOB: faker.date.birthdate({ mode: 'age', min: 18, max: 90 }).toISOString().slice(0, 10),
    GovIdType: faker.helpers.arrayElement(GOV_ID_TYPES),
    Address: fakeAddress(),
  };
}

/** A US-style street address within the handler's 200 characters. */
export function fakeAddress() {
  const address = `${faker.location.streetAddress()}, ${faker.location.city()}, ${faker.location.state({
    abbreviated: true,
  })} ${faker.location.zipCode()}`;
  return address.slice(0, MAX_ADDRESS);
}

/**
 * on|off from LAB_KEEPALIVE, else from a /keepalive-on|off base path, else 'default'.
 * @param {string | undefined} basePath
 * @param {string | undefined} label
 */
export function variantOf(basePath, label = process.env.LAB_KEEPALIVE) {
  if (label) return label;
  const m = /\/keepalive-(on|off)\/?$/.exec(basePath ?? '');
  return m ? m[1] : 'default';
}

/** Lazily opened append-only files; one write() per line keeps lines whole across workers. */
class LineFile {
  /** @param {string | undefined} path */
  constructor(path) {
    this.path = path;
    /** @type {number | undefined} */
    this.fd = undefined;
  }

  /** @param {string} line */
  append(line) {
    if (!this.path) return;
    this.fd ??= openSync(this.path, 'a');
    writeSync(this.fd, `${line}\n`);
  }

  close() {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

const timingsFile = new LineFile(process.env.LAB_TIMINGS_FILE);
const govIdsFile = new LineFile(process.env.LAB_GOVIDS_FILE);
process.once('exit', () => {
  timingsFile.close();
  govIdsFile.close();
});

/**
 * @typedef {{ vars: Record<string, unknown> }} Context
 * @typedef {{ emit(type: 'counter' | 'histogram', name: string, value: number): void }} Events
 * @typedef {{ json?: unknown, body?: string, url?: string, method?: string, headers?: Record<string, string> }} RequestParams
 * @typedef {{ statusCode: number, body: unknown, timings?: { phases?: { firstByte?: number } } }} Response
 * @typedef {(error?: Error) => void} Next
 */

/** @param {Context} context @param {string} name */
function varOf(context, name) {
  const v = context.vars[name];
  return typeof v === 'string' ? v : undefined;
}

/** A variable the runner set, else the environment's fallback. @param {Context} context @param {string} name @param {string} env */
function setting(context, name, env) {
  const v = context.vars[name];
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number') return String(v);
  return process.env[env] || undefined;
}

/** The phase's function memory, MB, when the runner said. @param {Context} context */
function memoryMbOf(context) {
  const raw = setting(context, 'labMemoryMb', 'LAB_MEMORY_MB') ?? '';
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** Seconds of closed loop; 0 (open loop) unless the runner set closedLoopS. @param {Context} context */
export function closedLoopSeconds(context) {
  const s = Number(context.vars.closedLoopS ?? 0);
  return Number.isFinite(s) && s > 0 ? s : 0;
}

/** When this worker's closed loop ends (epoch ms), set by the first user that starts. */
/** @type {number | undefined} */
let loopDeadline;

/**
 * beforeScenario of every scenario: the first user of a closed loop starts the clock, so every
 * user of the phase stops at the same moment. Each user counts once under the load's shape.
 * @param {Context} context @param {Events} events @param {Next} next
 */
export function startLoop(context, events, next) {
  const s = closedLoopSeconds(context);
  if (s > 0) loopDeadline ??= Date.now() + s * 1000;
  context.vars.labIteration = 0;
  const rate = Number(context.vars.labRatePerS);
  if (s > 0) events?.emit('counter', METRIC.loadClosed, 1);
  else if (Number.isFinite(rate) && rate > 0) events?.emit('counter', `${METRIC.loadOpenPrefix}${rate}`, 1);
  return next();
}

/**
 * whileTrue of every scenario's loop: false in an open loop (one request per user); in a closed
 * loop, true until the deadline. Artillery calls it after each iteration, never before the first.
 * @param {Context} context @param {(more: boolean) => void} done
 */
export function keepLooping(context, done) {
  if (closedLoopSeconds(context) === 0) return done(false);
  return done(loopDeadline !== undefined && Date.now() < loopDeadline);
}

/** The cursor of a closed loop's walk over the payload's GovIds (labGovIds), per worker. */
let govIdCursor = 0;

/**
 * The payload's GovIds (labGovIds, every row of the file, loaded whole); [] without one.
 * @param {Context} context
 * @returns {string[]}
 */
function govIdsOf(context) {
  const rows = context.vars.labGovIds;
  if (!Array.isArray(rows)) return [];
  return rows.flatMap((r) => {
    const g = r !== null && typeof r === 'object' ? /** @type {{ govId?: unknown }} */ (r).govId : r;
    return typeof g === 'string' && g !== '' ? [g] : [];
  });
}

/**
 * The pick seed of the payload (labPickSeed); undefined without one. Throws on a seed that is not
 * a whole number: a stream of requests that picked nothing would hide it.
 * @param {Context} context
 */
export function pickSeedOf(context) {
  const raw = context.vars.labPickSeed;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = String(raw).trim();
  if (!/^\d{1,9}$/.test(text))
    throw new Error(`labPickSeed must be a whole number, got ${JSON.stringify(raw)}`);
  return Number(text);
}

/** @type {(() => number) | undefined} */
let pick;
/** @type {string[] | undefined} */
let pickList;

/**
 * beforeRequest of the get, overwrite, update and view scenarios, first. With a pick seed in the
 * payload (the histogram article: "randomly selected objects" among those seeded first), every
 * request names a GovId of the payload (labGovIds) picked uniformly at random. Without it, the
 * payload's GovId on a user's first request; in a closed loop the later requests walk the
 * payload's GovIds, from a random start so that workers spread over the list.
 * @param {RequestParams} _requestParams @param {Context} context @param {Events} _events @param {Next} next
 */
export function nextGovId(_requestParams, context, _events, next) {
  const iteration = Number(context.vars.labIteration ?? 0);
  context.vars.labIteration = iteration + 1;
  let seed;
  try {
    seed = pickSeedOf(context);
  } catch (e) {
    return next(/** @type {Error} */ (e));
  }
  if (seed !== undefined) {
    pickList ??= govIdsOf(context);
    if (pickList.length === 0) return next();
    // Each Artillery worker its own stream: the same seed in two workers would pick alike.
    pick ??= seededUniform(seed * 1000 + Number(process.env.LOCAL_WORKER_ID ?? 0));
    context.vars.govId = pickList[Math.floor(pick() * pickList.length)];
    return next();
  }
  if (iteration === 0 || closedLoopSeconds(context) === 0) return next();
  const list = govIdsOf(context);
  if (list.length === 0) return next();
  if (govIdCursor === 0) govIdCursor = Math.floor(Math.random() * list.length);
  context.vars.govId = list[govIdCursor % list.length];
  govIdCursor += 1;
  return next();
}

/**
 * beforeRequest of the create scenario: the body is a fresh Person.
 * @param {RequestParams} requestParams @param {Context} context @param {Events} _events @param {Next} next
 */
export function setPersonBody(requestParams, context, _events, next) {
  const person = buildPerson();
  setJsonBody(requestParams, person);
  context.vars.govId = person.GovId;
  return next();
}

/** Persons in a put10 body (lambda/shared/person.ts PUT10_COUNT). */
export const PUT10_COUNT = 10;

/**
 * beforeRequest of the put10 scenario: ten fresh Persons, each its own GovId.
 * @param {RequestParams} requestParams @param {Context} _context @param {Events} _events @param {Next} next
 */
export function setPersonsBody(requestParams, _context, _events, next) {
  setJsonBody(requestParams, { persons: Array.from({ length: PUT10_COUNT }, () => buildPerson()) });
  return next();
}

/** @param {RequestParams} requestParams @param {unknown} body */
function setJsonBody(requestParams, body) {
  // The exact bytes sent, so the SigV4 payload hash covers them.
  requestParams.body = JSON.stringify(body);
  requestParams.headers = { ...requestParams.headers, 'content-type': 'application/json' };
}

/**
 * beforeRequest of the overwrite scenario, after requireGovId: a fresh Person (maybe of another
 * GovIdType) under the payload's GovId, which the path names too.
 * @param {RequestParams} requestParams @param {Context} context @param {Events} _events @param {Next} next
 */
export function setOverwriteBody(requestParams, context, _events, next) {
  const govId = varOf(context, 'govId');
  if (!govId) return next(new Error('no GovId in the payload: did the create phase record any?'));
  setJsonBody(requestParams, { ...buildPerson(), GovId: govId });
  return next();
}

/**
 * beforeRequest of the update scenario, after requireGovId: the one field an update changes.
 * @param {RequestParams} requestParams @param {Context} _context @param {Events} _events @param {Next} next
 */
export function setAddressChange(requestParams, _context, _events, next) {
  setJsonBody(requestParams, { Address: fakeAddress() });
  return next();
}

/**
 * beforeRequest of the query scenario: one of the GovIdTypes the create phase draws from, as
 * `govIdType` and URL-encoded as `govIdTypeParam` for the query string.
 * @param {RequestParams} _requestParams @param {Context} context @param {Events} _events @param {Next} next
 */
export function pickGovIdType(_requestParams, context, _events, next) {
  const type = faker.helpers.arrayElement(GOV_ID_TYPES);
  context.vars.govIdType = type;
  context.vars.govIdTypeParam = encodeURIComponent(type);
  return next();
}

/**
 * beforeRequest of the get, overwrite and update scenarios: fail the VU clearly when the payload had no GovId.
 * @param {RequestParams} _requestParams @param {Context} context @param {Events} _events @param {Next} next
 */
export function requireGovId(_requestParams, context, _events, next) {
  const govId = varOf(context, 'govId');
  if (!govId) return next(new Error('no GovId in the payload: did the create phase record any?'));
  return next();
}

/** This worker's responses in flight, for lab.in_flight. */
const inFlight = new InFlight();

/**
 * afterResponse of every scenario: one timings line, custom metrics, and on a 201 the GovId.
 * @param {RequestParams} _requestParams @param {Response} response @param {Context} context
 * @param {Events} events @param {Next} next
 */
export function recordResponse(_requestParams, response, context, events, next) {
  const status = response.statusCode;
  const timing = timingOfBody(typeof response.body === 'string' ? response.body : '');
  const govId = varOf(context, 'govId');
  const firstByte = response.timings?.phases?.firstByte;
  const memoryMb = memoryMbOf(context);
  /** @type {import('../core/timing.d.mts').TimingLine} */
  const line = {
    at: Date.now(),
    target: varOf(context, 'labTarget') ?? 'unknown',
    variant: variantOf(varOf(context, 'basePath'), setting(context, 'labKeepAlive', 'LAB_KEEPALIVE')),
    phase: varOf(context, 'labPhase') ?? 'unknown',
    ...(memoryMb === undefined ? {} : { memoryMb }),
    status,
    clientMs: typeof firstByte === 'number' ? firstByte : null,
    govId: govId ?? null,
    timing,
  };
  timingsFile.append(JSON.stringify(line));
  for (const [type, name, value] of responseMetrics(status, timing)) events.emit(type, name, value);
  if (line.clientMs !== null) events.emit('histogram', METRIC.inFlight, inFlight.add(line.at, line.clientMs));
  if (status === 201 && line.phase === 'create' && govId) {
    govIdsFile.append(govId);
    events.emit('counter', 'lab.govids_recorded', 1);
  }
  return next();
}

/** @type {Promise<() => Promise<import('../local/auth/sigv4-signer.mjs').Credentials>> | undefined} */
let credentialSource;

function credentials() {
  const accessKeyId = process.env.LAB_SIGV4_ACCESS_KEY_ID;
  const secretAccessKey = process.env.LAB_SIGV4_SECRET_ACCESS_KEY;
  if (accessKeyId && secretAccessKey) return Promise.resolve({ accessKeyId, secretAccessKey });
  // The AWS default chain, loaded only for cloud runs; it caches and refreshes credentials itself.
  credentialSource ??= import('@aws-sdk/credential-provider-node').then((m) => m.defaultProvider());
  return credentialSource.then((provider) => provider());
}

/** Fills `{{ name }}` from the virtual user's variables, as Artillery will. @param {string} s @param {Context} context */
function resolve(s, context) {
  return s.replace(/{{\s*([\w$.]+)\s*}}/g, (_, name) => String(context.vars[name] ?? ''));
}

/**
 * beforeRequest of every scenario, after the others: SigV4-signs the request when
 * LAB_SIGV4_REGION is set. The URL is resolved here because Artillery templates it later.
 * @param {RequestParams} requestParams @param {Context} context @param {Events} _events @param {Next} next
 */
export function signRequest(requestParams, context, _events, next) {
  const region = setting(context, 'labSigv4Region', 'LAB_SIGV4_REGION');
  if (!region) return next();
  // Artillery prepends the target only to URLs that start with '/', which `{{ basePath }}` hides.
  const path = resolve(requestParams.url ?? '', context);
  const url = path.startsWith('/') ? `${String(context.vars.target ?? '')}${path}` : path;
  requestParams.url = url;
  const headers = { ...(requestParams.headers ?? {}) };
  const method = (requestParams.method ?? 'GET').toUpperCase();
  credentials()
    .then((creds) => sigv4({ method, url, headers, body: requestParams.body }, creds, region))
    .then((signed) => {
      requestParams.headers = { ...headers, ...signed };
      next();
    })
    .catch((e) => next(e instanceof Error ? e : new Error(String(e))));
}
