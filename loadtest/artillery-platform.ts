/**
 * Where Artillery's workers run: this machine (`artillery run`, its worker threads), or a fleet in
 * the user's AWS account through Artillery's own distributed runners, called as Artillery
 * documents them (node_modules/artillery/lib/cmds/run-lambda.js, run-fargate.js):
 *   aws:lambda   `artillery run-lambda --region R --count N --memory-size MB --architecture A
 *                [--lambda-role-arn ARN]`: container-image functions, each capped at 15 minutes
 *   aws:fargate  `artillery run-fargate --region R --count N --cpu V --memory GB
 *                [--task-role-name NAME] [--spot]`: ECS tasks, no duration cap
 * Both run the whole script on every worker (Artillery's "multiply" mode, where the local
 * platform divides it): the phases are divided here, so --rate and --parallel stay the totals.
 */

export const CLOUD_PLATFORMS = ['aws:lambda', 'aws:fargate'] as const;
export type CloudPlatform = (typeof CLOUD_PLATFORMS)[number];

/** A Lambda worker's run must end inside Lambda's 900 s timeout; setup and drain take the rest. */
export const LAMBDA_MAX_PHASE_S = 780;

/** run-lambda's defaults (node_modules/artillery/lib/cmds/run-lambda.js), passed explicitly for the cost. */
export const LAMBDA_WORKER_MEMORY_MB = 4096;
export const LAMBDA_WORKER_ARCHITECTURE = 'arm64';
/** run-fargate's documented defaults: 4 vCPU, 8 GB per task, passed explicitly for the cost. */
export const FARGATE_WORKER_VCPU = 4;
export const FARGATE_WORKER_MEMORY_GB = 8;

export interface Workers {
  readonly platform: CloudPlatform;
  /** Lambda functions or Fargate tasks, each running its share of every phase. */
  readonly count: number;
  /** Where the workers run; the stack's own region is another setting. */
  readonly region: string;
  /** aws:lambda: the role's ARN (--lambda-role-arn); aws:fargate: the role's name (--task-role-name). */
  readonly role?: string;
  /** aws:fargate: Fargate Spot. */
  readonly spot?: boolean;
}

export function isCloudPlatform(v: string | undefined): v is CloudPlatform {
  return (CLOUD_PLATFORMS as readonly string[]).includes(v ?? '');
}

/** Refuses what Artillery would take and then fail on in the cloud, before anything starts. */
export function checkWorkers(w: Workers, durationS?: number): void {
  if (!isCloudPlatform(w.platform))
    throw new Error(`platform must be one of ${CLOUD_PLATFORMS.join(', ')}, got ${String(w.platform)}`);
  if (!Number.isInteger(w.count) || w.count < 1 || w.count > 1000)
    throw new Error(`count must be a whole number from 1 to 1000, got ${w.count}`);
  if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(w.region))
    throw new Error(`region must look like us-east-1, got ${JSON.stringify(w.region)}`);
  if (w.platform === 'aws:lambda' && w.spot) throw new Error('--spot is a Fargate option');
  if (
    w.platform === 'aws:lambda' &&
    w.role !== undefined &&
    !/^arn:aws[a-z-]*:iam::\d{12}:role\/\S+$/.test(w.role)
  )
    throw new Error(`aws:lambda takes the worker role's ARN, got ${JSON.stringify(w.role)}`);
  if (w.platform === 'aws:fargate' && w.role !== undefined && !/^[\w+=,.@-]{1,64}$/.test(w.role))
    throw new Error(`aws:fargate takes the task role's name, got ${JSON.stringify(w.role)}`);
  if (w.platform === 'aws:lambda' && durationS !== undefined && durationS > LAMBDA_MAX_PHASE_S)
    throw new Error(
      `aws:lambda workers stop at Lambda's 15-minute timeout: phases of at most ${LAMBDA_MAX_PHASE_S} s (use aws:fargate for longer)`,
    );
}

/** The artillery subcommand and its platform flags; `run` on this machine. */
export function platformCommand(w: Workers | undefined): string[] {
  if (!w) return ['run'];
  checkWorkers(w);
  const common = ['--region', w.region, '--count', String(w.count)];
  if (w.platform === 'aws:lambda') {
    return [
      'run-lambda',
      ...common,
      '--memory-size',
      String(LAMBDA_WORKER_MEMORY_MB),
      '--architecture',
      LAMBDA_WORKER_ARCHITECTURE,
      ...(w.role ? ['--lambda-role-arn', w.role] : []),
    ];
  }
  return [
    'run-fargate',
    ...common,
    '--cpu',
    String(FARGATE_WORKER_VCPU),
    '--memory',
    String(FARGATE_WORKER_MEMORY_GB),
    ...(w.role ? ['--task-role-name', w.role] : []),
    ...(w.spot ? ['--spot'] : []),
  ];
}

/**
 * One worker's share of the phases: every cloud worker runs the whole script, so arrivals per
 * second and arrival counts are divided by the workers (a closed loop's users must divide evenly).
 */
export function perWorkerPhases(
  phases: readonly Record<string, string | number>[],
  count: number,
): Record<string, string | number>[] {
  if (count === 1) return phases.map((p) => ({ ...p }));
  return phases.map((p) => {
    const out = { ...p };
    if (typeof p.arrivalRate === 'number') out.arrivalRate = p.arrivalRate / count;
    if (typeof p.arrivalCount === 'number') {
      if (p.arrivalCount % count !== 0)
        throw new Error(
          `${p.arrivalCount} arrivals do not divide among ${count} workers: give a multiple of ${count}`,
        );
      out.arrivalCount = p.arrivalCount / count;
    }
    return out;
  });
}
