import { describe, expect, it } from 'vitest';
import { normalizeTemplate, RICH_FLAGS, synthLab } from '../support/synth';

describe.each([
  ['default flags', {}],
  ['targets=dynamodb,qldb,redis,dsql keepAlive=both provisionedConcurrency=2 tracing=true', RICH_FLAGS],
])('stack snapshots with %s', (_name, flags) => {
  const lab = synthLab(flags);

  it('LatencyLab-Data', () => {
    expect(normalizeTemplate(lab.data)).toMatchSnapshot();
  });

  it('LatencyLab-Api', () => {
    expect(normalizeTemplate(lab.api)).toMatchSnapshot();
  });

  it('LatencyLab-PowerTuning', () => {
    expect(lab.powerTuning).toBeDefined();
    expect(lab.powerTuning && normalizeTemplate(lab.powerTuning)).toMatchSnapshot();
  });
});
