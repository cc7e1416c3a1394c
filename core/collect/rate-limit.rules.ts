/**
 * COL-15, DEC-COL-07: at most `limit` events per account in any second, as a sliding window: the times
 * (virtual clock) of the events admitted during the last 1000 ms. The window holds at most `limit` times,
 * so admitting costs O(limit) at worst and a window never grows.
 */
export interface RateWindow {
  /** Admission times inside the window, oldest first. */
  readonly admittedAt: readonly number[];
}

export const emptyRateWindow: RateWindow = { admittedAt: [] };

export const rateWindowMs = 1000;

export interface Admission {
  readonly admitted: boolean;
  readonly next: RateWindow;
}

/**
 * COL-15, DEC-COL-07: admits an event at `now` when fewer than `limit` were admitted in (now - 1000 ms, now].
 * Times after `now` are dropped: the virtual clock was set back, and they must not block the account.
 */
export function admitEvent(window: RateWindow, now: number, limit: number): Admission {
  const times = window.admittedAt;
  let first = 0;
  while (first < times.length && (times[first] as number) <= now - rateWindowMs) first += 1;
  let end = times.length;
  while (end > first && (times[end - 1] as number) > now) end -= 1;
  const recent = first === 0 && end === times.length ? times : times.slice(first, end);
  if (recent.length >= limit) return { admitted: false, next: recent === times ? window : { admittedAt: recent } };
  return { admitted: true, next: { admittedAt: [...recent, now] } };
}
