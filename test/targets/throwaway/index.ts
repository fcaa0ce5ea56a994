/**
 * A fifth target made of files in this folder only: an in-memory Map engine, its store, its
 * handler entry, its CDK definition, its local target, its network link and its cost (a unit of
 * its own, metered and priced: cost.ts, prices.json), in one TargetModule.
 * LAB_TARGET_MODULES=test/targets/throwaway/index.ts registers it in any process (the lab's
 * synth child included); no file outside this folder names it.
 */
import { relative } from 'node:path';
import { PROJECT_ROOT } from '../../../core/paths';
import { LabVpc } from '../../../lib/constructs/lab-vpc';
import type { TargetModule } from '../../../targets/registry';
import { cost } from './cost';
import { startMapEngine } from './engine';
import { THROWAWAY_URL_ENV } from './store';

/** The variable the binding sets: which map the function uses (the engine serves one). */
export const THROWAWAY_MAP_ENV = 'THROWAWAY_MAP';

export const target: TargetModule = {
  name: 'throwaway',
  info: {
    label: 'Throwaway',
    handlerEntry: relative(PROJECT_ROOT, new URL('./handler.ts', import.meta.url).pathname),
  },
  definition: {
    // Nothing to create: the engine is the lab's. Each function gets the map's name and no
    // grant at all: the engine is no AWS service, so least privilege is no permission.
    createData: () => ({
      bind(fn) {
        fn.addEnvironment(THROWAWAY_MAP_ENV, 'person');
      },
      // As a database reachable only inside a VPC (ElastiCache, Aurora): one VPC in the API stack.
      functionProps(scope) {
        const lab =
          (scope.node.tryFindChild('ThrowawayVpc') as LabVpc | undefined) ??
          new LabVpc(scope, 'ThrowawayVpc');
        return { vpc: lab.vpc, securityGroups: [lab.securityGroup] };
      },
    }),
  },
  local: {
    findEngine: () => ({ found: true, source: 'in-process Map (test/targets/throwaway)' }),
    async start() {
      const engine = await startMapEngine();
      return {
        description: 'in-memory Map',
        endpoint: `http://127.0.0.1:${engine.port}`,
        upstreamPort: engine.port,
        pid: process.pid,
        tables: [],
        nameOf: () => undefined,
        functionEnv: (model) => ({ [THROWAWAY_URL_ENV]: model.url }),
        clientEnv: (model) => ({ [THROWAWAY_URL_ENV]: model.url }),
        restart: () => engine.restart(),
        stop: () => engine.stop(),
      };
    },
  },
  links: {
    link: {
      rttMs: 1,
      serviceTime: null,
      sources: [
        { what: 'a test target: the in-region profile’s round trip between AZs, no service time of its own' },
      ],
    },
  },
  cost,
};
