import { afterEach, describe, expect, it, vi } from 'vitest';
import { emitTiming, METRICS_NAMESPACE } from '../../lambda/shared/metrics';

describe('timing metrics (EMF through Powertools)', () => {
  afterEach(() => vi.restoreAllMocks());

  function capture(fn: () => void): Record<string, unknown>[] {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    fn();
    const lines = write.mock.calls.map(([c]) => String(c).trim()).filter((l) => l.startsWith('{'));
    write.mockRestore();
    return lines.map((l) => JSON.parse(l));
  }

  it('writes one EMF line per invocation with the timing fields as metrics and metadata', () => {
    const [line, ...rest] = capture(() =>
      emitTiming('dynamodb-get', 200, {
        dbMs: 9.812,
        newConnection: true,
        dbRequests: 2,
        coldStart: false,
        initType: 'on-demand',
      }),
    );
    expect(rest).toEqual([]);
    expect(line).toMatchObject({
      function: 'dynamodb-get',
      service: 'latency-lab',
      dbMs: 9.812,
      dbRequests: 2,
      newConnection: 1,
      coldStart: 0,
      lab: 'timing',
      status: '200',
      initType: 'on-demand',
    });
    const aws = line._aws as {
      CloudWatchMetrics: {
        Namespace: string;
        Dimensions: string[][];
        Metrics: { Name: string; Unit: string }[];
      }[];
    };
    const [directive] = aws.CloudWatchMetrics;
    expect(directive.Namespace).toBe(METRICS_NAMESPACE);
    expect(directive.Dimensions[0]).toEqual(expect.arrayContaining(['service', 'function']));
    expect(directive.Metrics).toEqual(
      expect.arrayContaining([
        { Name: 'dbMs', Unit: 'Milliseconds' },
        { Name: 'dbRequests', Unit: 'Count' },
        { Name: 'newConnection', Unit: 'Count' },
        { Name: 'coldStart', Unit: 'Count' },
      ]),
    );
  });

  it('leaves dbMs out for a 400, which never reached the database', () => {
    const [line] = capture(() =>
      emitTiming('dynamodb-create', 400, {
        dbMs: 0,
        newConnection: false,
        dbRequests: 0,
        coldStart: true,
        initType: 'on-demand',
      }),
    );
    expect(line.dbMs).toBeUndefined();
    expect(line).toMatchObject({ status: '400', coldStart: 1 });
  });
});
