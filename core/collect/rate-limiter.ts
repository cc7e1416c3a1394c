import {
  activeSourceMs,
  type ByteBucket,
  emptyRateWindow,
  fairShare,
  type RateWindow,
  rateWindowMs,
  recentWindow,
  recordAdmission,
  takeBytes,
  windowCount,
} from "./rate-limit.rules.ts";

export interface CollectRateSettings {
  /** DEC-COL-07: an account's events per second (`limits.collectEventsPerSecond`). */
  readonly eventsPerSecond: number;
  /** A source's bytes of events per second, whatever the account (`limits.collectBytesPerSourcePerSecond`). */
  readonly bytesPerSourcePerSecond: number;
}

/** Why an event was refused (each is answered 429 `Rate limit exceeded`), or that it was admitted. */
export type RateDecision = "admitted" | "accountLimit" | "sourceShare" | "sourceBytes";

export interface RateRequest {
  readonly account: string;
  /** Who sent it (sourceOfAddress of the client address). */
  readonly source: string;
  /** The event's size: the bytes of its body (decompressed) and of its query string. */
  readonly bytes: number;
  /** Virtual time, epoch milliseconds. */
  readonly now: number;
}

interface SourceRates {
  window: RateWindow;
}

interface AccountRates {
  window: RateWindow;
  /** The sources that sent to the account in this period of activeSourceMs or the one before. */
  readonly sources: RecentMap<SourceRates>;
}

/**
 * COL-15, DEC-COL-07, and fairness beneath it: an event is admitted while its account has admitted fewer than
 * `eventsPerSecond` in the last second, its source holds less than its fairShare of that window (the active
 * sources being those that sent to the account, refused or not, in this 10 s period of the clock or the one
 * before), and its source's bytes allow it. A refusal admits nothing. Time arrives as an argument; per event
 * the work is O(1), and what is kept of a source is dropped two periods after it last sent (its byte bucket
 * once it is full again), whole periods at a time, so memory is bounded by the sources of the last 20 s.
 */
export class CollectRateLimiter {
  private readonly accounts = new Map<string, AccountRates>();
  /** Byte buckets by source; one untouched for two periods of 1 s is full again, and dropped. */
  private readonly buckets = new RecentMap<ByteBucket>(rateWindowMs);

  constructor(private readonly settings: CollectRateSettings) {}

  admit(request: RateRequest): RateDecision {
    const { now } = request;
    let account = this.accounts.get(request.account);
    if (account === undefined) {
      account = { window: emptyRateWindow, sources: new RecentMap(activeSourceMs) };
      this.accounts.set(request.account, account);
    }
    // Seen now, refused or not.
    let source = account.sources.take(request.source, now);
    if (source === undefined) {
      source = { window: emptyRateWindow };
      account.sources.put(request.source, source, now);
    }

    account.window = recentWindow(account.window, now);
    if (windowCount(account.window) >= this.settings.eventsPerSecond) return "accountLimit";
    source.window = recentWindow(source.window, now);
    if (windowCount(source.window) >= fairShare(this.settings.eventsPerSecond, account.sources.size()))
      return "sourceShare";

    const taken = takeBytes(
      this.buckets.take(request.source, now),
      now,
      request.bytes,
      this.settings.bytesPerSourcePerSecond,
    );
    this.buckets.put(request.source, taken.next, now);
    if (!taken.admitted) return "sourceBytes";

    account.window = recordAdmission(account.window, now);
    source.window = recordAdmission(source.window, now);
    return "admitted";
  }

  /** The sources counted active for an account as of its latest event (what it keeps of them in memory). */
  activeSources(account: string): number {
    return this.accounts.get(account)?.sources.size() ?? 0;
  }

  /** The byte buckets kept, as of the latest admission. */
  keptBuckets(): number {
    return this.buckets.size();
  }

  /** Forgets every window and bucket (POST /admin/reset). */
  forget(): void {
    this.accounts.clear();
    this.buckets.clear();
  }
}

/**
 * Values by key, kept for the period of the clock in which they were last taken or put and the period after:
 * a new period drops the one before the last whole. O(1) per call with no scan, and bounded by the keys of
 * two periods. A clock that skips a period, or goes back, drops everything.
 */
class RecentMap<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();
  private period = Number.NEGATIVE_INFINITY;

  constructor(private readonly periodMs: number) {}

  /** The value of `key` if it was used in this period or the last, now counted as used in this one. */
  take(key: string, now: number): V | undefined {
    this.turn(now);
    const value = this.current.get(key);
    if (value !== undefined) return value;
    const earlier = this.previous.get(key);
    if (earlier === undefined) return undefined;
    this.previous.delete(key);
    this.current.set(key, earlier);
    return earlier;
  }

  put(key: string, value: V, now: number): void {
    this.turn(now);
    this.previous.delete(key);
    this.current.set(key, value);
  }

  /** Keys used in this period or the last (a key is in one of the two maps only). */
  size(): number {
    return this.current.size + this.previous.size;
  }

  clear(): void {
    this.current = new Map();
    this.previous = new Map();
    this.period = Number.NEGATIVE_INFINITY;
  }

  private turn(now: number): void {
    const period = Math.floor(now / this.periodMs);
    if (period === this.period) return;
    this.previous = period === this.period + 1 ? this.current : new Map();
    this.current = new Map();
    this.period = period;
  }
}
