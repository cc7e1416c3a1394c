import type { RateCount, RateCountExchange } from "../ports/rate-counts.store.ts";
import {
  accountHasRoom,
  activeSourceMs,
  type ByteBucket,
  emptyRateWindow,
  fairShare,
  type OthersCounts,
  type RateWindow,
  rateWindowMs,
  recentWindow,
  recordAdmission,
  secondOf,
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

/** An account's events in one second of the clock on this node, and what of them the store was last given. */
interface SecondCount {
  readonly second: number;
  offered: number;
  admitted: number;
  sentOffered: number;
  sentAdmitted: number;
}

interface AccountRates {
  window: RateWindow;
  /** The sources that sent to the account in this period of activeSourceMs or the one before. */
  readonly sources: RecentMap<SourceRates>;
  /** The account's events here in the latest second it had one, and in the second before that. */
  latest: SecondCount | null;
  earlier: SecondCount | null;
  /** The other nodes' counts, as the latest exchange with the store read them (none on a node alone). */
  others: OthersCounts | null;
}

/** An exchange with the store to make (RateCountStore), and what its answer is settled against. */
export interface PendingExchange {
  readonly exchange: RateCountExchange;
  /** The limiter's generation when it was made: the answer to an exchange made before `forget` is dropped. */
  readonly generation: number;
}

/**
 * COL-15, DEC-COL-07, and fairness beneath it: an event is admitted while its account's limit has room (alone,
 * fewer than `eventsPerSecond` admitted in the last second), its source holds less than its fairShare of that
 * window (the active sources being those that sent to the account, refused or not, in this 10 s period of the
 * clock or the one before), and its source's bytes allow it. A refusal admits nothing. Time arrives as an
 * argument; per event the work is O(1), and what is kept of a source is dropped two periods after it last sent
 * (its byte bucket once it is full again), whole periods at a time, so memory is bounded by the sources of the
 * last 20 s.
 *
 * Nodes sharing a store keep the account's limit together (accountHasRoom): each counts the account's events
 * per second, and every few milliseconds gives the store its counts and reads the other nodes' (`exchangeAt`,
 * then `settleExchange`: core/collect/rate-exchange.use-cases.ts). Alone, a node reads none, and the limit is
 * its own sliding window. Fair shares and byte budgets stay each node's own.
 */
export class CollectRateLimiter {
  private readonly accounts = new Map<string, AccountRates>();
  /** Byte buckets by source; one untouched for two periods of 1 s is full again, and dropped. */
  private readonly buckets = new RecentMap<ByteBucket>(rateWindowMs);
  /** The accounts that had an event in this second of the clock or the one before: those an exchange is about. */
  private readonly recentAccounts = new RecentMap<AccountRates>(rateWindowMs);
  private generation = 0;
  /** Whether an account had an event here that no exchange has asked about yet (new, or back after a while). */
  private unread = false;

  constructor(private readonly settings: CollectRateSettings) {}

  admit(request: RateRequest): RateDecision {
    const { now } = request;
    let account = this.accounts.get(request.account);
    if (account === undefined) {
      account = {
        window: emptyRateWindow,
        sources: new RecentMap(activeSourceMs),
        latest: null,
        earlier: null,
        others: null,
      };
      this.accounts.set(request.account, account);
    }
    if (this.recentAccounts.take(request.account, now) === undefined) {
      this.recentAccounts.put(request.account, account, now);
      this.unread = true;
    }
    // Seen now, refused or not.
    let source = account.sources.take(request.source, now);
    if (source === undefined) {
      source = { window: emptyRateWindow };
      account.sources.put(request.source, source, now);
    }

    const counted = secondCountOf(account, now);
    counted.offered += 1;
    const offeredBefore = account.earlier?.second === counted.second - 1 ? account.earlier.offered : 0;
    account.window = recentWindow(account.window, now);
    const { eventsPerSecond } = this.settings;
    if (!accountHasRoom(eventsPerSecond, windowCount(account.window), offeredBefore, account.others, now))
      return "accountLimit";
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
    counted.admitted += 1;
    return "admitted";
  }

  /**
   * The exchange with the store due at `now` for `node`: this node's counts of this second and the one before
   * that the store does not have yet, and the other nodes' counts asked, of the accounts that had an event here
   * in those seconds. Null when none had.
   */
  exchangeAt(now: number, node: string): PendingExchange | null {
    const second = secondOf(now);
    const accounts: string[] = [];
    const counts: RateCount[] = [];
    for (const [name, account] of this.recentAccounts.entries(now)) {
      accounts.push(name);
      for (const count of [account.earlier, account.latest]) {
        if (count === null || (count.second !== second && count.second !== second - 1)) continue;
        if (count.offered !== count.sentOffered || count.admitted !== count.sentAdmitted)
          counts.push({ account: name, second: count.second, offered: count.offered, admitted: count.admitted });
      }
    }
    this.unread = false;
    if (accounts.length === 0) return null;
    return {
      exchange: { node, counts, accounts, fromSecond: second - 1, toSecond: second },
      generation: this.generation,
    };
  }

  /**
   * Whether an account had an event here that no exchange has asked the other nodes' counts of: one new to this
   * node, or back after two seconds without events. Until it is asked about, the node knows nothing of what the
   * others admit of it.
   */
  hasUnreadAccounts(): boolean {
    return this.unread;
  }

  /** The store's answer to `pending`: the counts given are the store's, and the other nodes' count from now on. */
  settleExchange(pending: PendingExchange, others: readonly RateCount[]): void {
    if (pending.generation !== this.generation) return;
    const { exchange } = pending;
    for (const sent of exchange.counts) {
      const account = this.accounts.get(sent.account);
      for (const count of [account?.earlier, account?.latest]) {
        if (!count || count.second !== sent.second) continue;
        count.sentOffered = Math.max(count.sentOffered, sent.offered);
        count.sentAdmitted = Math.max(count.sentAdmitted, sent.admitted);
      }
    }
    const read = new Map<string, { admitted: number; offered: number; offeredBefore: number }>();
    for (const count of others) {
      const sums = read.get(count.account) ?? { admitted: 0, offered: 0, offeredBefore: 0 };
      if (count.second === exchange.toSecond) {
        sums.admitted += count.admitted;
        sums.offered += count.offered;
      } else if (count.second === exchange.fromSecond) sums.offeredBefore += count.offered;
      read.set(count.account, sums);
    }
    for (const name of exchange.accounts) {
      const account = this.accounts.get(name);
      if (account)
        account.others = {
          second: exchange.toSecond,
          ...(read.get(name) ?? { admitted: 0, offered: 0, offeredBefore: 0 }),
        };
    }
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
    this.recentAccounts.clear();
    this.generation += 1;
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

  /** The keys used in this period or the last, with their values, as of `now`. */
  *entries(now: number): IterableIterator<[string, V]> {
    this.turn(now);
    yield* this.current;
    yield* this.previous;
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

/** The account's count of the second `now` is in, made when it is a new second (or the clock was set back). */
function secondCountOf(account: AccountRates, now: number): SecondCount {
  const second = secondOf(now);
  const latest = account.latest;
  if (latest !== null && latest.second === second) return latest;
  account.earlier = latest !== null && latest.second === second - 1 ? latest : null;
  const made = { second, offered: 0, admitted: 0, sentOffered: 0, sentAdmitted: 0 };
  account.latest = made;
  return made;
}
