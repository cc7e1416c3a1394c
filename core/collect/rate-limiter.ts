import {
  activeSourceMs,
  emptyRateWindow,
  fairShare,
  isBucketFull,
  recentWindow,
  recordAdmission,
  takeBytes,
  windowCount,
  type ByteBucket,
  type RateWindow,
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
  lastSeen: number;
}

interface AccountRates {
  window: RateWindow;
  /** The sources seen lately, least recently seen first (a Map keeps the order they were set in). */
  readonly sources: Map<string, SourceRates>;
}

/**
 * COL-15, DEC-COL-07, and fairness beneath it: an event is admitted while its account has admitted fewer than
 * `eventsPerSecond` in the last second, its source holds less than its fairShare of that window (the sources
 * that sent to the account in the last 10 s counting as active, refused ones too), and its source's bytes
 * allow it. A refusal admits nothing. Time arrives as an argument; per event the work is O(1) amortized, and
 * what is kept of a source is forgotten once it has been quiet for 10 s (its bytes once its bucket is full).
 */
export class CollectRateLimiter {
  private readonly accounts = new Map<string, AccountRates>();
  /** Byte buckets by source, least recently used first. */
  private readonly buckets = new Map<string, ByteBucket>();

  constructor(private readonly settings: CollectRateSettings) {}

  admit(request: RateRequest): RateDecision {
    const { now } = request;
    let account = this.accounts.get(request.account);
    if (account === undefined) {
      account = { window: emptyRateWindow, sources: new Map() };
      this.accounts.set(request.account, account);
    }
    forgetQuietSources(account.sources, now);
    const source = account.sources.get(request.source) ?? { window: emptyRateWindow, lastSeen: now };
    // Seen now, refused or not: moved to the end, the most recently seen.
    account.sources.delete(request.source);
    source.lastSeen = now;
    account.sources.set(request.source, source);

    account.window = recentWindow(account.window, now);
    if (windowCount(account.window) >= this.settings.eventsPerSecond) return "accountLimit";
    source.window = recentWindow(source.window, now);
    if (windowCount(source.window) >= fairShare(this.settings.eventsPerSecond, account.sources.size)) return "sourceShare";

    this.forgetFullBuckets(now);
    const taken = takeBytes(this.buckets.get(request.source), now, request.bytes, this.settings.bytesPerSourcePerSecond);
    this.buckets.delete(request.source);
    this.buckets.set(request.source, taken.next);
    if (!taken.admitted) return "sourceBytes";

    account.window = recordAdmission(account.window, now);
    source.window = recordAdmission(source.window, now);
    return "admitted";
  }

  /** The sources an account has seen in the last 10 s as of its latest event (what it keeps in memory). */
  activeSources(account: string): number {
    return this.accounts.get(account)?.sources.size ?? 0;
  }

  /** The byte buckets kept (sources whose bucket was not full at the latest admission). */
  keptBuckets(): number {
    return this.buckets.size;
  }

  /** Forgets every window and bucket (POST /admin/reset). */
  forget(): void {
    this.accounts.clear();
    this.buckets.clear();
  }

  private forgetFullBuckets(now: number): void {
    for (const [source, bucket] of this.buckets) {
      if (!isBucketFull(bucket, now, this.settings.bytesPerSourcePerSecond)) break;
      this.buckets.delete(source);
    }
  }
}

/** Drops the sources quiet for activeSourceMs (or seen after `now`: the clock was set back), oldest first. */
function forgetQuietSources(sources: Map<string, SourceRates>, now: number): void {
  for (const [key, source] of sources) {
    if (source.lastSeen > now - activeSourceMs && source.lastSeen <= now) break;
    sources.delete(key);
  }
}
