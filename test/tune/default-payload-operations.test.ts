/** Power Tuning's default payload takes every operation down its real path: the handler's own parse accepts it. */
import { describe, expect, it } from 'vitest';
import { labFunctions, OPERATIONS } from '../../core/lab-functions';
import {
  createPerson,
  getPerson,
  type Operation,
  overwritePerson,
  putPersons,
  queryPersons,
  topStories,
  updatePerson,
  viewStory,
} from '../../lambda/shared/handlers';
import { proxyEvent, tuningPerson, tuningPersons } from '../../tune/default-payload';

const PARSERS: Record<(typeof OPERATIONS)[number], Operation<unknown, unknown>> = {
  create: createPerson as Operation<unknown, unknown>,
  get: getPerson as Operation<unknown, unknown>,
  overwrite: overwritePerson as Operation<unknown, unknown>,
  update: updatePerson as Operation<unknown, unknown>,
  query: queryPersons as Operation<unknown, unknown>,
  put10: putPersons as Operation<unknown, unknown>,
  view: viewStory as Operation<unknown, unknown>,
  top10: topStories as Operation<unknown, unknown>,
};

describe('proxyEvent for every operation', () => {
  it.each(OPERATIONS)('%s: a request its handler accepts, about the tuning Person', (operation) => {
    const [spec] = labFunctions(['dynamodb'], ['on'], [operation]);
    const person = tuningPerson('dynamodb');
    const event = proxyEvent(spec, person);
    expect(event.httpMethod).toBe(spec.method);
    const parsed = PARSERS[operation].parse(event);
    expect(parsed.ok, JSON.stringify(parsed)).toBe(true);
    const value = parsed.ok ? parsed.value : undefined;
    const expected = {
      create: person,
      get: person.GovId,
      overwrite: person,
      update: { govId: person.GovId, changes: { Address: person.Address } },
      query: { govIdType: person.GovIdType, limit: 10 },
      put10: tuningPersons(person),
      view: person.GovId,
      top10: null,
    }[operation];
    expect(value).toEqual(expected);
  });
});
