/**
 * `--engine`: its choices come from the targets that offer several engines (LocalTarget.engineKinds),
 * so the CLIs name no target; a choice no target offers is a usage error naming them all.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors';
import { TARGETS } from '../../core/lab-functions';
import { engineHelp, engineOption } from '../../local/cli/options';
import { engineChoices } from '../../local/targets';

describe('--engine', () => {
  it('offers the engines the registered targets list, each with its target, the default first', () => {
    expect(engineChoices(TARGETS)).toEqual([
      { kind: 'dynalite', target: 'dynamodb' },
      { kind: 'dynamodb-local', target: 'dynamodb' },
    ]);
    expect(engineHelp(24)).toBe(
      '  --engine NAME         local engine of DynamoDB: dynalite, dynamodb-local (default dynalite)',
    );
  });

  it('takes a choice a target offers, leaves each target its default when absent, refuses another', () => {
    expect(engineOption('dynamodb-local')).toBe('dynamodb-local');
    expect(engineOption(undefined)).toBeUndefined();
    expect(() => engineOption('mongo')).toThrow(UsageError);
    expect(() => engineOption('mongo')).toThrow(
      '--engine must be one of dynalite, dynamodb-local, got "mongo"',
    );
  });
});
