import type { DrainReport, WorkScheduler } from "../ports/background.port.ts";
import type { MovableClock } from "../ports/movable-clock.port.ts";

export interface FastForwardOptions {
  /** How far the virtual clock may be moved in all, in milliseconds. */
  readonly upToMs: number;
  /** Real time to spend at most, in milliseconds, as the wait's own timeout. */
  readonly timeoutMs: number;
  /** Real time in milliseconds (the host's Date.now), against which the timeout is kept. */
  readonly realNow: () => number;
}

export interface FastForwardReport extends DrainReport {
  /** How far the virtual clock was moved, in milliseconds. */
  readonly advancedMs: number;
}

/** Real time a look at work due now but not run here waits (another process holds it, or its worker backs off). */
const stuckLookMs = 1_000;

/**
 * The wait of `/admin/wait` with `advanceClock` (svc-hub's own, beside DEC-OPS-04): for a test that does not
 * wait in real time for work scheduled later on the virtual clock (with realistic timing a publication is
 * minutes away, a deletion days). It runs what is due, then moves the clock to the time the next item falls
 * due and runs that, and so on, until nothing is left, the next item is further than `upToMs` from where the
 * clock stood, or the timeout passes. The clock moves only to a time something falls due, never past it.
 */
export async function drainAdvancingClock(
  scheduler: WorkScheduler,
  clock: MovableClock,
  options: FastForwardOptions,
): Promise<FastForwardReport> {
  const { realNow } = options;
  const deadline = realNow() + options.timeoutMs;
  await clock.refresh();
  const limit = clock.now() + options.upToMs;
  const offsetBefore = clock.offsetMs();
  const processed: Record<string, number> = {};
  const drain = async (includeScheduled: boolean, timeoutMs: number): Promise<DrainReport> => {
    const drained = await scheduler.drain({ includeScheduled, timeoutMs: Math.max(0, timeoutMs) });
    // Each drain counts what finished while it ran; the drains follow each other, so the counts add up.
    for (const [worker, count] of Object.entries(drained.processed))
      processed[worker] = (processed[worker] ?? 0) + count;
    return drained;
  };
  const reportOf = (drained: DrainReport, timedOut = drained.timedOut): FastForwardReport => ({
    ...drained,
    timedOut,
    processed: { ...processed },
    advancedMs: clock.offsetMs() - offsetBefore,
  });
  for (;;) {
    const drained = await drain(false, deadline - realNow());
    const next = drained.nextDueAt;
    if (drained.complete || drained.timedOut || (next !== null && next > limit)) return reportOf(drained);
    if (realNow() >= deadline) return reportOf(drained, true);
    if (next !== null && next > clock.now()) {
      const moved = await clock.set(next);
      if (!moved.ok) return reportOf(drained);
      continue;
    }
    // Due now and not run here (another process holds that work), or a worker waiting out its backoff: the
    // clock cannot help; wait for them in real time, a little at a time.
    const waited = await drain(true, Math.min(stuckLookMs, deadline - realNow()));
    if (waited.complete) return reportOf(waited);
  }
}
