import { describe, expect, it } from 'vitest';
import { isTimingLine, reachedDatabase, timingOfBody } from '../../core/timing.mjs';

const timing = { dbMs: 3.25, newConnection: true, dbRequests: 1, coldStart: false, initType: 'on-demand' };

describe('timingOfBody', () => {
  it('returns the timing block of a lab response', () => {
    expect(timingOfBody(JSON.stringify({ person: {}, timing }))).toEqual(timing);
    // With the invocations in flight in its environment (absent from older timings).
    const shared = { ...timing, concurrency: 7 };
    expect(timingOfBody(JSON.stringify({ person: {}, timing: shared }))).toEqual(shared);
  });

  it.each([
    ['an HTML error page', '<html>502 Bad Gateway</html>'],
    ['an API Gateway error', '{"message":"Internal server error"}'],
    ['a string dbMs', JSON.stringify({ timing: { ...timing, dbMs: '3' } })],
    ['a negative dbMs', JSON.stringify({ timing: { ...timing, dbMs: -1 } })],
    ['no dbRequests', JSON.stringify({ timing: { ...timing, dbRequests: undefined } })],
    ['a fractional dbRequests', JSON.stringify({ timing: { ...timing, dbRequests: 1.5 } })],
    ['a concurrency of 0', JSON.stringify({ timing: { ...timing, concurrency: 0 } })],
    ['a fractional concurrency', JSON.stringify({ timing: { ...timing, concurrency: 2.5 } })],
    ['null', 'null'],
  ])('returns null for %s', (_name, body) => {
    expect(timingOfBody(body)).toBeNull();
  });
});

describe('isTimingLine', () => {
  const line = {
    at: 1,
    target: 'dynamodb',
    variant: 'on',
    phase: 'get',
    status: 200,
    clientMs: 4,
    govId: 'A',
    timing,
  };
  it('accepts a line with or without a timing block and refuses a broken one', () => {
    expect(isTimingLine(line)).toBe(true);
    expect(isTimingLine({ ...line, timing: null, clientMs: null, govId: null })).toBe(true);
    expect(isTimingLine({ ...line, timing: { dbMs: 1 } })).toBe(false);
    expect(isTimingLine({ ...line, status: '200' })).toBe(false);
  });
});

describe('reachedDatabase', () => {
  it('leaves out 400s and responses without a timing block, keeps every other status', () => {
    expect(reachedDatabase(400, timing)).toBe(false);
    expect(reachedDatabase(200, null)).toBe(false);
    for (const status of [200, 201, 404, 409, 503]) expect(reachedDatabase(status, timing)).toBe(true);
  });

  it('leaves out a 503 whose call opened no connection and sent nothing (a secret that could not be read)', () => {
    const nothingSent = { ...timing, dbMs: 0, newConnection: false, dbRequests: 0 };
    expect(reachedDatabase(503, nothingSent)).toBe(false);
    // A connection attempt that failed, or a request on a kept connection, did reach it.
    expect(reachedDatabase(503, { ...nothingSent, newConnection: true, dbMs: 1.5 })).toBe(true);
    expect(reachedDatabase(503, { ...nothingSent, dbRequests: 1, dbMs: 2 })).toBe(true);
    // Timings written before dbRequests existed keep the status rule.
    expect(reachedDatabase(503, { dbMs: 0, newConnection: false })).toBe(true);
  });
});
