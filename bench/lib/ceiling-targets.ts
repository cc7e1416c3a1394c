/**
 * Issue 44's targets for the collection path, measured against the durable ceiling (bench/ceiling.ts `durable`:
 * the collection use case and a flat-file append with one fdatasync a group) in the same run. Pure: the figures
 * come in, the ratios and verdicts go out.
 */

export interface OpenLoopTarget {
  /** Requests a second asked of the load generator. */
  readonly rate: number;
  /** svc-hub's p99 at most this many times the ceiling's. */
  readonly p99Factor: number;
}

export const ceilingTargets = {
  /** Closed loop (wrk -t1 -c64): svc-hub's requests a second at least this share of the ceiling's. */
  closedLoopRatio: 0.7,
  openLoop: [
    { rate: 1000, p99Factor: 1.5 },
    { rate: 4000, p99Factor: 2 },
  ] as const satisfies readonly OpenLoopTarget[],
  /**
   * A rate is kept when at least this share of it was reached: hey paces each worker by a ticker, so a 10 s run
   * loses up to one interval a worker at the start and the end even against a server that answers at once.
   */
  rateKeptShare: 0.95,
  peakRssMb: 250,
  profilesCaughtUpSeconds: 1,
} as const;

/** svc-hub's figure over the ceiling's; null when either is missing or the ceiling's is not above zero. */
export function ratioOf(service: number | null, ceiling: number | null): number | null {
  if (service === null || ceiling === null || !(ceiling > 0)) return null;
  return service / ceiling;
}

export interface ClosedLoopVerdict {
  /** Each round's ratio, in the order run. */
  readonly ratios: readonly (number | null)[];
  /** The requests of every round together: svc-hub's over the ceiling's. */
  readonly ratio: number | null;
  readonly met: boolean | null;
}

/** The rounds of a closed loop alternated (ceiling, svc-hub, ceiling, svc-hub…), each in requests a second. */
export function closedLoopVerdict(rounds: ReadonlyArray<{ ceiling: number; service: number }>): ClosedLoopVerdict {
  const sum = (pick: (round: { ceiling: number; service: number }) => number) =>
    rounds.reduce((total, round) => total + pick(round), 0);
  const ratio =
    rounds.length === 0
      ? null
      : ratioOf(
          sum((round) => round.service),
          sum((round) => round.ceiling),
        );
  return {
    ratios: rounds.map((round) => ratioOf(round.service, round.ceiling)),
    ratio,
    met: ratio === null ? null : ratio >= ceilingTargets.closedLoopRatio,
  };
}

/** Whether a load generator asked for `asked` requests a second reached it. */
export function rateKept(asked: number, reached: number): boolean {
  return reached >= asked * ceilingTargets.rateKeptShare;
}

export interface OpenLoopSide {
  /** Requests a second reached. */
  readonly rate: number;
  readonly p99Ms: number;
}

export interface OpenLoopVerdict {
  readonly ceilingKept: boolean;
  readonly serviceKept: boolean;
  /** svc-hub's p99 over the ceiling's. */
  readonly p99Ratio: number | null;
  /** svc-hub kept the rate and its p99 is within the factor; null when the ceiling's p99 is not a figure to divide by. */
  readonly met: boolean | null;
}

/**
 * One fixed rate, both servers. The target is svc-hub's: it keeps the rate and stays within the factor of the
 * ceiling's p99. Whether the ceiling kept the rate is reported beside it (on a busy machine it may not).
 */
export function openLoopVerdict(target: OpenLoopTarget, ceiling: OpenLoopSide, service: OpenLoopSide): OpenLoopVerdict {
  const ceilingKept = rateKept(target.rate, ceiling.rate);
  const serviceKept = rateKept(target.rate, service.rate);
  const p99Ratio = ratioOf(service.p99Ms, ceiling.p99Ms);
  return {
    ceilingKept,
    serviceKept,
    p99Ratio,
    met: !serviceKept ? false : p99Ratio === null ? null : p99Ratio <= target.p99Factor,
  };
}
