/**
 * The throwaway target's part of the cost model, to show a target brings its own: a unit of its
 * own (widget requests), a meter that turns the raw bytes its client sends into that unit by a
 * rule from its prices file, and a price in us-east-1 only (eu-west-1 leaves it unpriced).
 */
import { relative } from 'node:path';
import type { TargetCost } from '../../../core/cost-registry';
import { PROJECT_ROOT } from '../../../core/paths';
import prices from './prices.json' with { type: 'json' };
import { THROWAWAY_SENT_BYTES } from './store';

export const WIDGET_REQUESTS = 'throwaway.widgetRequests';

export const cost: TargetCost = {
  units: { [WIDGET_REQUESTS]: 'Throwaway widget requests' },
  meteringRules: ['widgetBytes'],
  meter: {
    raw: [THROWAWAY_SENT_BYTES],
    // One widget request per KB a response's calls sent, rounded up.
    bill: (raw, rules) => [
      {
        key: WIDGET_REQUESTS,
        quantity: Math.ceil((raw.get(THROWAWAY_SENT_BYTES) ?? 0) / rules.widgetBytes),
        basis: 'computed',
      },
    ],
  },
  prices,
  pricesFile: relative(PROJECT_ROOT, new URL('./prices.json', import.meta.url).pathname),
};
