/** The chosen memory and the per-memory table, as `npm run tune` prints them (cloud and local). */
import type { PowerTuningOutput } from './power-tuning-result';

const usd = (v: number | undefined) =>
  v === undefined ? '-' : `$${v.toFixed(10).replace(/0+$/, '').replace(/\.$/, '.0')}`;

export function printResult(
  out: { write(chunk: string): unknown },
  key: string,
  strategy: string,
  o: PowerTuningOutput,
  where: 'aws' | 'local' = 'aws',
): void {
  const lines = [
    '',
    `Best memory for ${key} (strategy ${strategy}): ${o.power} MB`,
    `  average duration  ${o.duration.toFixed(2)} ms`,
    `  average cost      ${usd(o.cost)} per invocation (${usd(o.cost * 1e6)} per million)`,
  ];
  if (where === 'local') {
    lines.push(
      `  its invocations   ${usd(o.stateMachine?.lambdaCost)} in Lambda (tuned on the local lab: no Step Functions)`,
    );
  } else if (o.stateMachine?.executionCost !== undefined || o.stateMachine?.lambdaCost !== undefined) {
    lines.push(
      `  this run cost     ${usd(o.stateMachine?.executionCost)} Step Functions + ${usd(o.stateMachine?.lambdaCost)} Lambda`,
    );
  }
  lines.push(`  visualization     ${o.stateMachine?.visualization ?? '(none in the output)'}`);
  if (o.stats && o.stats.length > 0) {
    lines.push('', '  memory MB   avg duration ms   avg cost per invocation');
    for (const s of [...o.stats].sort((a, b) => a.value - b.value)) {
      const mark = s.value === o.power ? '  <- chosen' : '';
      lines.push(
        `  ${String(s.value).padStart(9)}   ${(s.averageDuration?.toFixed(2) ?? '-').padStart(15)}   ${usd(s.averagePrice)}${mark}`,
      );
    }
  }
  out.write(`${lines.join('\n')}\n`);
}
