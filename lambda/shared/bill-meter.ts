/**
 * Billed units as the client layer counts them, per execution environment: each store adds
 * what a call was billed (DynamoDB's ConsumedCapacity, QLDB's I/Os, Redis commands, DSQL's bytes and time)
 * and the handler records the difference over one call in the timing block's `billed`. Keys
 * are the units its target's cost part declares or the raw quantities its meter bills (DSQL's).
 */
import { type BilledQuantity, type UnitBasis, weakerBasis } from '../../core/timing.mjs';

export type { BilledQuantity, UnitBasis };

export class BillMeter {
  private readonly totals = new Map<string, { quantity: number; basis: UnitBasis }>();

  add(key: string, quantity: number, basis: UnitBasis): void {
    if (!(Number.isFinite(quantity) && quantity >= 0)) return;
    const seen = this.totals.get(key);
    this.totals.set(key, {
      quantity: (seen?.quantity ?? 0) + quantity,
      basis: seen === undefined ? basis : weakerBasis(seen.basis, basis),
    });
  }

  snapshot(): ReadonlyMap<string, { readonly quantity: number; readonly basis: UnitBasis }> {
    return new Map(this.totals);
  }
}

/** What was billed between two snapshots: one entry per key that grew. */
export function billedBetween(
  before: ReadonlyMap<string, { readonly quantity: number }>,
  after: ReadonlyMap<string, { readonly quantity: number; readonly basis: UnitBasis }>,
): BilledQuantity[] {
  const out: BilledQuantity[] = [];
  for (const [key, a] of after) {
    const quantity = a.quantity - (before.get(key)?.quantity ?? 0);
    // Rounded so float sums stay readable in the JSON (units are at most 1e-9 fine).
    if (quantity > 0) out.push({ key, quantity: Math.round(quantity * 1e9) / 1e9, basis: a.basis });
  }
  return out;
}
