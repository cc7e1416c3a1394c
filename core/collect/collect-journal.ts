import type { CollectErrorCode } from "../errors/collect.errors.ts";
import type { CollectMethod } from "../ports/collect-request.port.ts";
import type { VisitorIdDecision } from "../visitors/visitor-id.rules.ts";

/** What every outcome of the collection endpoint says, as far as the request could be read. */
interface JournalEntryBase {
  /** Increasing on this node (never reused while the process runs, also across a reset). */
  readonly id: number;
  /** Virtual-clock time, epoch milliseconds (for a stored event, its receivedAt). */
  readonly at: number;
  readonly method: CollectMethod;
  readonly account: string | null;
  readonly profile: string | null;
  /** svc_event */
  readonly event: string | null;
  /** svc_trace_id */
  readonly traceId: string | null;
  readonly userAgent: string | null;
}

/**
 * A stored event's request as it was received, enough to send it again (the console's raw request and curl
 * command): its query string, its body and the headers collection reads.
 */
export interface CollectedRequest {
  readonly method: CollectMethod;
  /** The query string as received, without its `?` ("" when there is none). */
  readonly query: string;
  /** POST: the Content-Type header as sent (null when none); GET: null. */
  readonly contentType: string | null;
  /** POST: the body as text, inflated when it came gzipped ("" when empty); GET: null. */
  readonly body: string | null;
  /** The cookies collection reads (TAPID, utag_main) as sent (CollectCookies.sent); null when none. */
  readonly cookie: string | null;
  readonly referer: string | null;
  readonly userAgent: string | null;
}

/** An event committed (COL-16): what was stored and how its visitor was chosen. */
export interface StoredJournalEntry extends JournalEntryBase {
  readonly outcome: "stored";
  readonly account: string;
  readonly profile: string;
  readonly visitorId: string;
  /** The stored parameters (COL-14), as committed. */
  readonly data: Readonly<Record<string, unknown>>;
  readonly decision: VisitorIdDecision;
  readonly request: CollectedRequest;
}

/** A request refused (400, 429, 503 with X-Error), with the hints of svc_account, svc_profile, svc_event, svc_trace_id. */
export interface RefusedJournalEntry extends JournalEntryBase {
  readonly outcome: "refused";
  readonly status: number;
  readonly reason: CollectErrorCode;
  readonly xError: string;
}

/** DEC-COL-06: a filtered bot, answered as a success; its hints come from the query string only. */
export interface BotJournalEntry extends JournalEntryBase {
  readonly outcome: "bot";
}

/** One outcome of the collection endpoint on this node. */
export type CollectJournalEntry = StoredJournalEntry | RefusedJournalEntry | BotJournalEntry;

/** An outcome as the collection use case hands it over; the journal numbers it. */
export type CollectOutcomeRecord =
  | Omit<StoredJournalEntry, "id">
  | Omit<RefusedJournalEntry, "id">
  | Omit<BotJournalEntry, "id">;

/** An entry as the admin API and the printed lines show it: `at` in ISO 8601, `atMs` in epoch milliseconds. */
export type CollectJournalView = Omit<CollectJournalEntry, "at"> & { readonly at: string; readonly atMs: number };

export type JournalListener = (entry: CollectJournalEntry) => void;

export interface CollectJournalOptions {
  /** How many outcomes the journal keeps at most (default 1000). */
  readonly size?: number;
  /**
   * How many bytes of request (a stored event's body and query string, twice: parsed and as sent, and every entry's User-Agent) the
   * entries kept may hold together, at most (default 16 MiB): past it the oldest entries go. Events of up to
   * 1 MiB are taken, and a thousand of them must not hold a gigabyte.
   */
  readonly maxBytes?: number;
}

export const defaultJournalSize = 1000;
export const defaultJournalBytes = 16 * 1024 * 1024;
/** The longest User-Agent an entry keeps (characters). */
const userAgentChars = 512;

/** An entry with `at` written as ISO 8601 beside `atMs` (the JSON of the live feed, the journal route and SVC_PRINT_EVENTS). */
export function viewOfJournalEntry(entry: CollectJournalEntry): CollectJournalView {
  return { ...entry, at: new Date(entry.at).toISOString(), atMs: entry.at };
}

/**
 * The collection journal (issue 32, the console's live feed): the last outcomes of the collection endpoint on
 * this process, stored, refused or filtered as a bot, each numbered, and the listeners told of each new one.
 * Per process, in memory: several nodes each have their own. On the collection endpoint's hot path, so a
 * record without listeners is one write into the ring (and the ring's byte count).
 */
export class CollectJournal {
  private readonly size: number;
  private readonly maxBytes: number;
  /** The ring: `count` entries from `start`, oldest first. */
  private readonly ring: Array<CollectJournalEntry | undefined>;
  private readonly weights: number[];
  private start = 0;
  private count = 0;
  private bytes = 0;
  private nextId = 1;
  private readonly listeners = new Set<JournalListener>();

  constructor(options: CollectJournalOptions = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? defaultJournalSize));
    this.maxBytes = options.maxBytes ?? defaultJournalBytes;
    this.ring = new Array(this.size);
    this.weights = new Array(this.size).fill(0);
  }

  /**
   * Keeps one outcome (its request's size in bytes as `weight`, for the byte budget) and tells the listeners. A
   * listener that throws is removed: a broken reader must not break collection.
   */
  record(outcome: CollectOutcomeRecord, weight = 0): CollectJournalEntry {
    const userAgent =
      outcome.userAgent !== null && outcome.userAgent.length > userAgentChars
        ? outcome.userAgent.slice(0, userAgentChars)
        : outcome.userAgent;
    const entry = { id: this.nextId++, ...outcome, userAgent } as CollectJournalEntry;
    const bytes = weight + (userAgent?.length ?? 0);
    if (this.count === this.size) this.dropOldest();
    const at = (this.start + this.count) % this.size;
    this.ring[at] = entry;
    this.weights[at] = bytes;
    this.count += 1;
    this.bytes += bytes;
    while (this.bytes > this.maxBytes && this.count > 1) this.dropOldest();
    if (this.listeners.size > 0) {
      for (const listener of this.listeners) {
        try {
          listener(entry);
        } catch {
          this.listeners.delete(listener);
        }
      }
    }
    return entry;
  }

  /** The id of the newest entry recorded since the process started (0: none yet), kept or not. */
  get lastId(): number {
    return this.nextId - 1;
  }

  /**
   * The entries after `afterId`, oldest first, at most `limit`. An id beyond the newest one recorded comes from
   * before this process started (its ids began again at 1): every entry kept is after it.
   */
  entriesAfter(afterId: number, limit: number = this.size): CollectJournalEntry[] {
    const after = afterId > this.lastId ? 0 : afterId;
    const found: CollectJournalEntry[] = [];
    for (let index = 0; index < this.count && found.length < limit; index += 1) {
      const entry = this.ring[(this.start + index) % this.size] as CollectJournalEntry;
      if (entry.id > after) found.push(entry);
    }
    return found;
  }

  /** The newest `count` entries kept, oldest first. */
  latest(count: number): CollectJournalEntry[] {
    const taken = Math.max(0, Math.min(count, this.count));
    const found: CollectJournalEntry[] = [];
    for (let index = this.count - taken; index < this.count; index += 1)
      found.push(this.ring[(this.start + index) % this.size] as CollectJournalEntry);
    return found;
  }

  /** Tells `listener` of every entry recorded from now on, until the answer is called. */
  subscribe(listener: JournalListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** How many listeners are subscribed (a stream that ended must leave none behind). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /**
   * Forgets every entry `matches` (a privacy deletion's value, DEC-PRV-05) and answers how many; the others
   * keep their order and ids.
   */
  forget(matches: (entry: CollectJournalEntry) => boolean): number {
    const kept: Array<[CollectJournalEntry, number]> = [];
    for (let index = 0; index < this.count; index += 1) {
      const at = (this.start + index) % this.size;
      const entry = this.ring[at] as CollectJournalEntry;
      if (!matches(entry)) kept.push([entry, this.weights[at] as number]);
    }
    const forgotten = this.count - kept.length;
    if (forgotten === 0) return 0;
    this.clear();
    for (const [entry, weight] of kept) {
      this.ring[this.count] = entry;
      this.weights[this.count] = weight;
      this.count += 1;
      this.bytes += weight;
    }
    return forgotten;
  }

  /** Every entry forgotten (POST /admin/reset); the ids go on, so a reader's last id never names a later entry. */
  clear(): void {
    this.ring.fill(undefined);
    this.weights.fill(0);
    this.start = 0;
    this.count = 0;
    this.bytes = 0;
  }

  private dropOldest(): void {
    this.bytes -= this.weights[this.start] as number;
    this.ring[this.start] = undefined;
    this.weights[this.start] = 0;
    this.start = (this.start + 1) % this.size;
    this.count -= 1;
  }
}
