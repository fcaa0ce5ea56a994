/**
 * Every parameter of the local model with its source, and the seed figure it was fitted to,
 * if any: a parameter fitted to an article's figure may predict another article's, never that
 * figure itself (the experiments mark such rows `calibration`). Read from the profiles and the
 * lab's defaults, so this list cannot drift from what the model runs. Plain data.
 */

import { TARGETS } from '../../core/lab-functions';
import { PUBLISHED_INITS } from '../host/cold-start-model';
import { DEFAULT_IDLE_TIMEOUT_S } from '../lab-defaults';
import { type Citation, IN_REGION, linkOf, type NetworkProfile } from './profiles';

export interface ModelParameter {
  readonly parameter: string;
  readonly value: string;
  readonly sources: readonly Citation[];
  /** The seed figure this value was taken or fitted from: its rows are calibration. null: held out. */
  readonly fittedTo: string | null;
}

const PROVISIONED_SEED = 'provisioned-concurrency-connections-ja.txt';

export function modelParameters(profile: NetworkProfile = IN_REGION): ModelParameter[] {
  const out: ModelParameter[] = [];
  for (const target of TARGETS) {
    const link = linkOf(profile, target);
    const measured = link.sources.filter((s) => !s.seed);
    out.push({
      parameter: `${target}: round trip per exchange (${profile.name})`,
      value: `${link.rttMs} ms`,
      sources: measured,
      fittedTo: null,
    });
    const st = link.serviceTime;
    const seeds = link.sources.filter((s) => s.seed);
    out.push({
      parameter: `${target}: service time per exchange (${profile.name}), seeded log-normal`,
      value: st
        ? `p50 ${st.p50Ms} / p99 ${st.p99Ms} ms: ${st.derivation}`
        : 'none: the local engine’s own time',
      sources: st ? link.sources : [],
      fittedTo: st && seeds.length > 0 ? seeds.map((s) => `${s.seed}: ${s.what}`).join('; ') : null,
    });
  }
  out.push(
    {
      parameter: 'engines: idle timeout of a client connection',
      value: `${DEFAULT_IDLE_TIMEOUT_S} s`,
      sources: [],
      fittedTo: `${PROVISIONED_SEED}: the logged port was kept after 60 s idle and changed after 65 s (DynamoDB publishes no idle timeout)`,
    },
    {
      parameter: 'TLS: every front',
      value:
        'the handshake and records of Node’s TLS, run by the environment’s own CPU share; round trips charged by the delay layer; TLS 1.3 today, TLS 1.2 where an article’s conditions say its endpoints negotiated it (experiments/conditions.ts)',
      sources: [
        {
          what: 'TLS 1.3 completes a full handshake in one round trip, TLS 1.2 in two (RFC 8446, section 1.2)',
          url: 'https://www.rfc-editor.org/rfc/rfc8446',
        },
      ],
      fittedTo: null,
    },
    {
      parameter: 'cold start: Init Duration',
      value:
        'the bundle’s module load in a fresh process under the function’s CPU share, plus Lambda’s sandbox and runtime start: the published hello-world Init Duration of the function’s runtime and architecture less the local runtime start, waited at each init (on-demand and provisioned), never below 0 (--cold-start off: not added)',
      sources: [
        {
          what: 'the Init phase starts the extensions, bootstraps the runtime and runs the function’s static code (Lambda Developer Guide, execution environment lifecycle)',
          url: 'https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html',
        },
      ],
      fittedTo: null,
    },
    ...PUBLISHED_INITS.map((p) => ({
      parameter: `cold start: Lambda’s sandbox and runtime start, ${p.runtime} ${p.architecture}`,
      value: `${p.initMs} ms (${p.year})`,
      sources: p.sources.map((url, i) => ({ what: i === 0 ? p.measured : 'the next day’s file', url })),
      fittedTo: null,
    })),
  );
  return out;
}
