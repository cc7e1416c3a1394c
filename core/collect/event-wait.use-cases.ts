import type { EventLoop, EventQuery, StoredEvent, Verdict } from "../ports/index.ts";
import type { CollectJournal } from "./collect-journal.ts";

/** Which stored events a test expects (issue 43, point 2): every given field must match. */
export interface EventExpectation {
  readonly account?: string;
  readonly profile?: string;
  /** The resolved visitor ID. */
  readonly visitorId?: string;
  /** svc_event */
  readonly event?: string;
  /** svc_trace_id */
  readonly traceId?: string;
  /** The tracking plan's verdict. */
  readonly verdict?: Verdict;
  /** Stored parameters and their values, compared as text (eventHasParameters). */
  readonly params?: Readonly<Record<string, string>>;
  /** Received at or after this virtual-clock time, epoch milliseconds. */
  readonly since?: number;
  /** Only events with a larger sequence number. */
  readonly afterSeq?: number;
}

/** The matching events counted, and the first `limit` of them, oldest first. */
export interface ExpectedEvents {
  readonly count: number;
  readonly events: readonly StoredEvent[];
}

/** What a wait found: whether at least `min` matched before the timeout, and after how long (real time). */
export interface EventWaitReport extends ExpectedEvents {
  readonly met: boolean;
  readonly waitedMs: number;
}

export interface EventWaitOptions {
  /** How many matching events end the wait (1 or more). */
  readonly min: number;
  /** Real milliseconds to wait at most. */
  readonly timeoutMs: number;
  /** How many of the matching events to answer. */
  readonly limit: number;
  /** Resolves when the wait is no longer wanted (its client went away): it ends then with what it found. */
  readonly abandoned?: Promise<void>;
}

export interface EventExpectationsDeps {
  /** The stored events a query selects (CollectService.storedEvents). */
  readonly find: (query: EventQuery) => Promise<StoredEvent[]>;
  /** This process's collection journal: an event stored here wakes a wait at once. */
  readonly journal: CollectJournal;
  readonly eventLoop: Pick<EventLoop, "monotonicMs" | "sleep">;
  /**
   * How often a wait looks again for events committed by another process on the same store, whose commits no
   * notification here announces (default defaultEventRequeryMs). Each look reads only events after the last seen.
   */
  readonly requeryMs?: number;
  /** Events read per query (default 1000). */
  readonly pageSize?: number;
}

export const defaultEventRequeryMs = 200;

/**
 * Whether an event's stored parameters hold every value of `params`. A value is compared as text: a string as
 * it is, a number or boolean as written in JSON (`2`, `true`), anything else as its JSON; a parameter the
 * event lacks never matches.
 */
export function eventHasParameters(
  data: Readonly<Record<string, unknown>>,
  params: Readonly<Record<string, string>>,
): boolean {
  for (const [name, expected] of Object.entries(params)) {
    if (!Object.hasOwn(data, name)) return false;
    const value = data[name];
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (text !== expected) return false;
  }
  return true;
}

/**
 * Event expectations (issue 43, point 2): count the stored events that match an expectation, or wait until
 * enough are stored. A wait reads the store once, then again only after what it has seen (sequence numbers
 * become visible in order, so nothing is missed): at once when this process stores an event, and every
 * `requeryMs` for the other processes on the store.
 */
export class EventExpectations {
  private readonly requeryMs: number;
  private readonly pageSize: number;

  constructor(private readonly deps: EventExpectationsDeps) {
    this.requeryMs = deps.requeryMs ?? defaultEventRequeryMs;
    this.pageSize = deps.pageSize ?? 1000;
  }

  /** The matching events stored now: how many, and the first `limit`. */
  async count(expectation: EventExpectation, limit: number): Promise<ExpectedEvents> {
    const tally = new Tally(expectation, limit);
    await this.readNew(tally);
    return { count: tally.count, events: tally.events };
  }

  /** Waits until at least `min` matching events are stored, or `timeoutMs` has passed; answers what it found. */
  async waitFor(expectation: EventExpectation, options: EventWaitOptions): Promise<EventWaitReport> {
    const { eventLoop, journal } = this.deps;
    const started = eventLoop.monotonicMs();
    const tally = new Tally(expectation, options.limit);
    let stored = false;
    let gone = false;
    let wake: (() => void) | null = null;
    void options.abandoned?.then(() => {
      gone = true;
      wake?.();
    });
    // Listening before the first read: an event stored while it runs is read by the next one.
    const unsubscribe = journal.subscribe((entry) => {
      if (entry.outcome !== "stored") return;
      stored = true;
      wake?.();
    });
    try {
      await this.readNew(tally);
      for (;;) {
        const waitedMs = eventLoop.monotonicMs() - started;
        if (tally.count >= options.min || waitedMs >= options.timeoutMs || gone) {
          return { met: tally.count >= options.min, count: tally.count, events: tally.events, waitedMs };
        }
        if (!stored && !gone) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            void eventLoop.sleep(Math.min(this.requeryMs, options.timeoutMs - waitedMs)).then(resolve);
          });
          wake = null;
        }
        stored = false;
        await this.readNew(tally);
      }
    } finally {
      unsubscribe();
    }
  }

  /** Reads the events after the last one `tally` has seen, page by page, into it. */
  private async readNew(tally: Tally): Promise<void> {
    const { expectation } = tally;
    for (;;) {
      const page = await this.deps.find({
        account: expectation.account,
        profile: expectation.profile,
        visitorId: expectation.visitorId,
        event: expectation.event,
        traceId: expectation.traceId,
        verdict: expectation.verdict,
        from: expectation.since,
        afterSeq: tally.lastSeq,
        limit: this.pageSize,
        order: "asc",
      });
      for (const event of page) tally.add(event);
      if (page.length < this.pageSize) return;
    }
  }
}

/** The matching events seen so far: how many, the first `limit`, and the last sequence number read. */
class Tally {
  count = 0;
  readonly events: StoredEvent[] = [];
  lastSeq: number;

  constructor(
    readonly expectation: EventExpectation,
    private readonly limit: number,
  ) {
    this.lastSeq = expectation.afterSeq ?? 0;
  }

  add(event: StoredEvent): void {
    this.lastSeq = Math.max(this.lastSeq, event.seq);
    if (!eventHasParameters(event.data, this.expectation.params ?? {})) return;
    this.count += 1;
    if (this.events.length < this.limit) this.events.push(event);
  }
}
