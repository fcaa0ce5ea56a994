/** The slow tier's API Gateway fuzzing: a longer set of generated HTTP requests on a lab of its own (api-gateway-fuzz.ts says what each must do). */
import { afterAll, beforeAll, describe } from 'vitest';
import { type RunningLab, startLab } from '../../local/lab';
import { LAB_TEST_CONTEXT } from '../support/lab-test-context';
import { itFuzzesTheApi } from './api-gateway-fuzz';
import { SLOW } from './support/fuzz-runs';

describe('fuzzing the local API Gateway front (slow tier)', () => {
  let lab: RunningLab;
  beforeAll(async () => {
    lab = await startLab({ port: 0, context: LAB_TEST_CONTEXT });
  }, 240_000);
  afterAll(async () => {
    await lab?.stop();
  });

  itFuzzesTheApi(() => lab, SLOW);
});
