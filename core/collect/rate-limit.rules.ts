/**
 * COL-15, DEC-COL-07: at most `limit` events per account in any second, as a sliding window: the times
 * (virtual clock) of the events admitted during the last 1000 ms. The window holds at most `limit` times.
 * Admitting costs O(1) amortized, however high the limit: windows share an append-only array of times, each
 * reading only its own range of it, so an admission appends in place instead of copying the window.
 */
export interface RateWindow {
  /** Admission times, oldest first: `times[start]` to `times[end - 1]` are this window's. */
  readonly times: readonly number[];
  readonly start: number;
  readonly end: number;
}

export const emptyRateWindow: RateWindow = { times: [], start: 0, end: 0 };

export const rateWindowMs = 1000;

/** Times dropped from the front of a shared array before it is compacted (a copy of the live range). */
const compactAfter = 1024;

export interface Admission {
  readonly admitted: boolean;
  readonly next: RateWindow;
}

/** The admission times a window holds, oldest first. */
export function admittedTimes(window: RateWindow): readonly number[] {
  return window.times.slice(window.start, window.end);
}

/**
 * COL-15, DEC-COL-07: admits an event at `now` when fewer than `limit` were admitted in (now - 1000 ms, now].
 * Times after `now` are dropped: the virtual clock was set back, and they must not block the account.
 * Pure as far as callers can see: a window never changes once made, and any window may be used again.
 */
export function admitEvent(window: RateWindow, now: number, limit: number): Admission {
  const { times } = window;
  let start = window.start;
  while (start < window.end && (times[start] as number) <= now - rateWindowMs) start += 1;
  let end = window.end;
  while (end > start && (times[end - 1] as number) > now) end -= 1;
  const recent = start === window.start && end === window.end ? window : { times, start, end };
  if (end - start >= limit) return { admitted: false, next: recent };
  return { admitted: true, next: appendTime(recent, now) };
}

function appendTime(window: RateWindow, now: number): RateWindow {
  const { times, start, end } = window;
  // In place only past the array's last time, where no other window reads, and while the dead prefix is no
  // longer than the live range (so the copy below costs O(1) per admission, amortized).
  if (end > 0 && times.length === end && start < Math.max(compactAfter, end - start)) {
    (times as number[]).push(now);
    return { times, start, end: end + 1 };
  }
  const copied = times.slice(start, end);
  copied.push(now);
  return { times: copied, start: 0, end: copied.length };
}
