import { describe, expect, it } from 'vitest';
import { modelParameters } from '../../local/network/model-parameters';

describe('the model’s parameters', () => {
  const params = modelParameters();
  const fitted = (parameter: string) => params.find((p) => p.parameter.startsWith(parameter))?.fittedTo;

  it('name the seed figure each calibrated value came from, so its rows are calibration', () => {
    expect(fitted('qldb: service time')).toContain('qldb-vs-dynamodb-optimising.txt');
    expect(fitted('redis: service time')).toContain('serverless-redis-vs-faunadb-histograms.txt');
    expect(fitted('engines: idle timeout')).toContain('provisioned-concurrency-connections-ja.txt');
  });

  it('hold out what comes from outside the seeds', () => {
    expect(fitted('dynamodb: service time')).toBeNull();
    for (const p of params.filter((x) => x.parameter.includes('round trip'))) {
      expect(p.fittedTo, p.parameter).toBeNull();
      expect(p.sources.length, p.parameter).toBeGreaterThan(0);
    }
  });
});
