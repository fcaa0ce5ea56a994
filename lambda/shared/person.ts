/**
 * The Person record and its validation. Unknown fields are rejected (400 naming the
 * field) rather than dropped: a lab that silently discards input hides client bugs,
 * and nothing outside this schema is ever written.
 */
import { GOV_ID_PATTERN } from '../../core/timing.mjs';

export interface Person {
  readonly GovId: string;
  readonly FirstName: string;
  readonly LastName: string;
  readonly DOB: string;
  readonly GovIdType: string;
  readonly Address?: string;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; error: string; field?: string };

export { GOV_ID_PATTERN } from '../../core/timing.mjs';

export const MAX_BODY_BYTES = 16 * 1024;

interface FieldRule {
  readonly required: boolean;
  readonly max: number;
}

const RULES: Record<keyof Person, FieldRule> = {
  GovId: { required: true, max: 64 },
  FirstName: { required: true, max: 100 },
  LastName: { required: true, max: 100 },
  DOB: { required: true, max: 10 },
  GovIdType: { required: true, max: 50 },
  Address: { required: false, max: 200 },
};
export const PERSON_FIELDS = Object.keys(RULES) as (keyof Person)[];

// Control characters are refused in every text field; they only ever come from broken clients.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export function validateGovId(value: unknown, field = 'GovId'): Validation<string> {
  if (typeof value !== 'string') return { ok: false, error: `${field} must be a string`, field };
  if (value.length === 0) return { ok: false, error: `${field} must not be empty`, field };
  if (value.length > 64) return { ok: false, error: `${field} must be at most 64 characters`, field };
  if (!GOV_ID_PATTERN.test(value)) {
    return { ok: false, error: `${field} may contain only letters, digits, '-' and '_'`, field };
  }
  return { ok: true, value };
}

/**
 * A calendar date from 0001-01-01 on. Year 0000 parses in JavaScript (1 BC, proleptic) but is
 * no date in PostgreSQL (and so DSQL), which has no year zero: refused here for every target.
 */
function isIsoDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s) || s.startsWith('0000')) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

export function validatePerson(input: unknown): Validation<Person> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, error: 'body must be a JSON object' };
  }
  const record = input as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(PERSON_FIELDS as string[]).includes(key)) {
      return { ok: false, error: `unknown field ${key}; allowed: ${PERSON_FIELDS.join(', ')}`, field: key };
    }
  }
  const out: Record<string, string> = {};
  for (const field of PERSON_FIELDS) {
    const value = record[field];
    if (value === undefined) {
      if (RULES[field].required) return { ok: false, error: `${field} is required`, field };
      continue;
    }
    if (field === 'GovId') {
      const id = validateGovId(value);
      if (!id.ok) return id;
      out[field] = id.value;
      continue;
    }
    const text = validateText(field, value);
    if (!text.ok) return text;
    out[field] = text.value;
  }
  return { ok: true, value: out as unknown as Person };
}

/** One text field by its rule: type, emptiness (required fields), length, control characters, DOB's form. */
function validateText(field: keyof Person, value: unknown): Validation<string> {
  const rule = RULES[field];
  if (typeof value !== 'string') return { ok: false, error: `${field} must be a string`, field };
  if (rule.required && value.trim() === '') return { ok: false, error: `${field} must not be empty`, field };
  if (value.length > rule.max)
    return { ok: false, error: `${field} must be at most ${rule.max} characters`, field };
  if (CONTROL_CHARS.test(value))
    return { ok: false, error: `${field} must not contain control characters`, field };
  if (field === 'DOB' && !isIsoDate(value)) {
    return { ok: false, error: 'DOB must be an ISO date (YYYY-MM-DD)', field };
  }
  return { ok: true, value };
}

/**
 * The stores' internal creation time (epoch ms): the sort key of "the newest of a GovIdType".
 * Not a Person field, so it is never accepted from a client (unknown field, 400) and never
 * returned (the stores read back PERSON_FIELDS only). An overwrite is a re-creation and takes
 * a new one; an update keeps it.
 */
export const CREATED_AT = 'CreatedAt';

/** What an update may change: the Address alone. */
export interface PersonChanges {
  readonly Address: string;
}
const CHANGE_FIELDS: readonly (keyof PersonChanges)[] = ['Address'];

/** An update's body: exactly `{"Address": "..."}`, Address under create's rules (may be empty, at most 200). */
export function validateChanges(input: unknown): Validation<PersonChanges> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, error: 'body must be a JSON object' };
  }
  const record = input as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(CHANGE_FIELDS as string[]).includes(key)) {
      return {
        ok: false,
        error: `unknown field ${key}; an update changes only ${CHANGE_FIELDS.join(', ')}`,
        field: key,
      };
    }
  }
  if (record.Address === undefined) return { ok: false, error: 'Address is required', field: 'Address' };
  const address = validateText('Address', record.Address);
  return address.ok ? { ok: true, value: { Address: address.value } } : address;
}

export const DEFAULT_QUERY_LIMIT = 10;
export const MAX_QUERY_LIMIT = 50;

export interface PersonQuery {
  readonly govIdType: string;
  /** 1..MAX_QUERY_LIMIT */
  readonly limit: number;
}

/** `?govIdType=X&limit=N`: govIdType as create's GovIdType (required, at most 50), limit 1..50, default 10. */
export function validateQuery(
  params: Record<string, string | undefined> | null | undefined,
): Validation<PersonQuery> {
  const govIdType = params?.govIdType;
  if (govIdType === undefined) return { ok: false, error: 'govIdType is required', field: 'govIdType' };
  if (govIdType.trim() === '') return { ok: false, error: 'govIdType must not be empty', field: 'govIdType' };
  if (govIdType.length > RULES.GovIdType.max)
    return {
      ok: false,
      error: `govIdType must be at most ${RULES.GovIdType.max} characters`,
      field: 'govIdType',
    };
  if (CONTROL_CHARS.test(govIdType))
    return { ok: false, error: 'govIdType must not contain control characters', field: 'govIdType' };
  const raw = params?.limit;
  let limit = DEFAULT_QUERY_LIMIT;
  if (raw !== undefined) {
    // Digits only: Number('') is 0, Number('1e1') is 10, parseInt('5x') is 5; none of them is a limit.
    if (!/^[0-9]{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_QUERY_LIMIT) {
      return { ok: false, error: `limit must be an integer from 1 to ${MAX_QUERY_LIMIT}`, field: 'limit' };
    }
    limit = Number(raw);
  }
  return { ok: true, value: { govIdType, limit } };
}

/** How many Persons a put10 body carries: the keep-alive article's "10 sequential DynamoDB operations". */
export const PUT10_COUNT = 10;

/**
 * A put10 body: `{"persons": [...]}` with exactly PUT10_COUNT valid Persons of distinct GovIds
 * (a repeated one would make the later put a conflict with the earlier, not a write). Errors
 * name the field as `persons[i].Field`.
 */
export function validatePersons(input: unknown): Validation<Person[]> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, error: 'body must be a JSON object' };
  }
  const record = input as Record<string, unknown>;
  const unknown = Object.keys(record).find((k) => k !== 'persons');
  if (unknown !== undefined)
    return { ok: false, error: `unknown field ${unknown}; allowed: persons`, field: unknown };
  const list = record.persons;
  if (!Array.isArray(list) || list.length !== PUT10_COUNT) {
    return { ok: false, error: `persons must be an array of ${PUT10_COUNT} Persons`, field: 'persons' };
  }
  const out: Person[] = [];
  const seen = new Set<string>();
  for (const [i, item] of list.entries()) {
    const v = validatePerson(item);
    if (!v.ok)
      return {
        ok: false,
        error: `persons[${i}]: ${v.error}`,
        field: `persons[${i}]${v.field ? `.${v.field}` : ''}`,
      };
    if (seen.has(v.value.GovId)) {
      return {
        ok: false,
        error: `persons[${i}]: GovId ${v.value.GovId} is repeated`,
        field: `persons[${i}].GovId`,
      };
    }
    seen.add(v.value.GovId);
    out.push(v.value);
  }
  return { ok: true, value: out };
}

/** Parses an API Gateway body: size, base64 and JSON errors become 400s, never throws. */
export function parseJsonBody(body: string | null | undefined, isBase64Encoded = false): Validation<unknown> {
  if (body === null || body === undefined || body === '')
    return { ok: false, error: 'request body is required' };
  const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) {
    return { ok: false, error: `request body must be at most ${MAX_BODY_BYTES} bytes` };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: `malformed JSON: ${(e as Error).message}` };
  }
}
