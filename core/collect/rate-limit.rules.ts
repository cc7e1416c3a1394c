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
  const recent = recentWindow(window, now);
  if (windowCount(recent) >= limit) return { admitted: false, next: recent };
  return { admitted: true, next: recordAdmission(recent, now) };
}

/** The window as it stands at `now`: only the times in (now - 1000 ms, now]. */
export function recentWindow(window: RateWindow, now: number): RateWindow {
  const { times } = window;
  let start = window.start;
  while (start < window.end && (times[start] as number) <= now - rateWindowMs) start += 1;
  let end = window.end;
  while (end > start && (times[end - 1] as number) > now) end -= 1;
  return start === window.start && end === window.end ? window : { times, start, end };
}

/** How many admissions a window holds. */
export function windowCount(window: RateWindow): number {
  return window.end - window.start;
}

/** The window with an admission at `now` added; `window` is a recentWindow at `now`. */
export function recordAdmission(window: RateWindow, now: number): RateWindow {
  return appendTime(window, now);
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

/** The second of the virtual clock `now` falls in: what nodes count an account's events by (RateCountStore). */
export function secondOf(now: number): number {
  return Math.floor(now / rateWindowMs);
}

/** The other nodes' counts of one account, as the latest exchange with the store read them (RateCountStore). */
export interface OthersCounts {
  /** The second the exchange was made in. */
  readonly second: number;
  /** The events the other nodes admitted in `second`, and were offered in it. */
  readonly admitted: number;
  readonly offered: number;
  /** The events they were offered in the second before `second`. */
  readonly offeredBefore: number;
}

/**
 * COL-15, DEC-COL-07 across nodes: whether an account's limit leaves this node room for one more event at `now`,
 * its window holding `held` events, `ownOfferedBefore` having reached the limit here in the second before
 * `now`'s, and `others` being the other nodes' counts (null: none read, as on a node alone). Two conditions:
 *
 * - The node's share: the limit split among the nodes by the events each was offered in the second before
 *   (every node reads the same counts of a whole second, so the shares add up to the limit), the spare left to
 *   each while the nodes together were offered less than the limit. Each node's window holds at most its share,
 *   so the nodes together hold at most the limit, however the events arrive within the second.
 * - What the other nodes admitted in this second, as far as read: their admissions and this node's window
 *   stay under the limit. This holds the limit while the shares do not yet know a change, such as a flood that
 *   starts on every node at once, or a node that joins one.
 *
 * Alone, a node's share is the limit and nothing else counts: the limit is the node's own sliding window,
 * exactly.
 */
export function accountHasRoom(
  limit: number,
  held: number,
  ownOfferedBefore: number,
  others: OthersCounts | null,
  now: number,
): boolean {
  const second = secondOf(now);
  const othersOfferedBefore =
    others === null
      ? 0
      : others.second === second
        ? others.offeredBefore
        : others.second === second - 1
          ? others.offered
          : 0;
  const share = limit - (limit * othersOfferedBefore) / Math.max(ownOfferedBefore + othersOfferedBefore, limit);
  const othersAdmitted = others !== null && others.second === second ? others.admitted : 0;
  return held + 1 <= share && held + othersAdmitted < limit;
}

/**
 * Ours, beneath DEC-COL-07: how many of an account's `limit` events in a window one source may hold while
 * `activeSources` (this one included) have sent to the account lately. Alone, a source has the whole limit;
 * with others, the larger of a fifth of the limit and an equal part, so a flood from one source leaves room
 * for the others however many there are.
 */
export function fairShare(limit: number, activeSources: number): number {
  if (activeSources <= 1) return limit;
  return Math.max(Math.ceil(limit * fairShareFloor), Math.floor(limit / activeSources));
}

/** The least share of a contended account's window a source keeps (a fifth: 20 of 100). */
export const fairShareFloor = 0.2;

/**
 * The period of the clock (10 s) by which a source counts as active: one that sent to an account in this
 * period or the one before is one of the account's active sources (for 10 to 20 s after it last sent).
 */
export const activeSourceMs = 10_000;

/**
 * The source an address speaks for: an IPv4 address (an IPv4-mapped IPv6 address as its IPv4 address) is its
 * own; an IPv6 address counts as its /64 network, which one host commonly holds whole (so it cannot make
 * itself many sources by changing the address's last 64 bits). Anything else is taken as it is.
 */
export function sourceOfAddress(address: string): string {
  if (!address.includes(":")) return address;
  const bare = address.split("%")[0] as string;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped) return mapped[1] as string;
  const halves = bare.toLowerCase().split("::");
  if (halves.length > 2) return bare;
  const head = halves[0] === "" ? [] : (halves[0] as string).split(":");
  const tail = halves.length === 2 && halves[1] !== "" ? (halves[1] as string).split(":") : [];
  // An embedded IPv4 tail (::1.2.3.4) is two groups: only the first four groups matter here.
  const groups =
    halves.length === 2
      ? [...head, ...Array.from({ length: Math.max(0, 8 - head.length - tail.length) }, () => "0"), ...tail]
      : head;
  if (groups.length < 4 || !groups.slice(0, 4).every((group) => /^[0-9a-f]{1,4}$/.test(group))) return bare;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** Bytes a source may still send, as they stood at `at` (virtual time): a token bucket. */
export interface ByteBucket {
  readonly bytes: number;
  readonly at: number;
}

export interface ByteAdmission {
  readonly admitted: boolean;
  readonly next: ByteBucket;
}

/**
 * Ours, beside DEC-COL-07: a source's events may carry `perSecond` bytes at once and `perSecond` more for each
 * second after (a bucket of `perSecond` bytes, refilled at that rate). An event of `size` bytes is admitted
 * while the bucket holds that many. No bucket (or one from after `now`: the clock was set back) is full.
 */
export function takeBytes(bucket: ByteBucket | undefined, now: number, size: number, perSecond: number): ByteAdmission {
  const available =
    bucket === undefined || bucket.at > now
      ? perSecond
      : Math.min(perSecond, bucket.bytes + ((now - bucket.at) * perSecond) / rateWindowMs);
  if (size > available) return { admitted: false, next: { bytes: available, at: now } };
  return { admitted: true, next: { bytes: available - size, at: now } };
}
