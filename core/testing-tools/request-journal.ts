import { accountOfRequest, type PathMatcher, splitQueryString } from "./fault-plan.rules.ts";

/**
 * How many bytes the request journal may hold unless told (SVC_REQUEST_JOURNAL_BYTES): past it the oldest
 * entries go. 0 turns the journal off.
 */
export const defaultRequestJournalBytes = 4 * 1024 * 1024;
/** How many characters of a request's query an entry keeps at most: the whole parameters that fit. */
export const requestJournalQueryChars = 512;
/** How many characters of a request's account an entry keeps at most (DLE-ERR-02's 250 for account and profile together). */
export const requestJournalAccountChars = 250;
/**
 * What an entry costs beside its own texts: the object with its numbers, the texts' headers, its place in the
 * array. Measured under Bun at about 150 bytes; counted high, as its texts are (two bytes a character).
 */
export const requestEntryOverheadBytes = 256;
/** How many entries `GET /admin/requests` answers unless told, and at most. */
export const defaultRequestJournalLimit = 100;
export const maxRequestJournalLimit = 1000;

/** A request as the journal answers it (issue 33). */
export interface RequestJournalEntry {
  /** 1, 2, 3, ... in the order the requests were answered on this node. */
  readonly id: number;
  /** When it arrived: real time (not the virtual clock), ISO 8601 UTC. */
  readonly at: string;
  readonly method: string;
  /** The route it matched, as registered (`/v1/dle/accounts/:account/…`), never the path as sent; null when none did. */
  readonly path: string | null;
  /**
   * The query's parameters that fit whole in its first requestJournalQueryChars characters, those named like a
   * secret (utk, password, key, token, ...) as "[redacted]"; none when no route matched.
   */
  readonly query: Readonly<Record<string, string | string[]>>;
  /** Whether parameters were left out because the query was longer. */
  readonly queryTruncated: boolean;
  /** The answer's status; null when a fault dropped the connection. */
  readonly status: number | null;
  readonly durationMs: number;
  /** The path's account, or /event's svc_account (at most requestJournalAccountChars); null when it has none. */
  readonly account: string | null;
  /** The id of the fault that answered or delayed it, when one did. */
  readonly fault?: string;
}

/** What to look for in the journal; every field given must match. */
export interface RequestJournalFilter {
  readonly method?: string;
  /** A test of the route's template (the host compiles the `path` pattern it was given). */
  readonly route?: PathMatcher;
  readonly status?: number;
  readonly account?: string;
  readonly limit?: number;
}

/** A request once answered, as the adapter hands it over; the journal keeps only some of it. */
export interface AnsweredRequest {
  /** The method, as the metrics name it (an unknown one as OTHER). */
  readonly method: string;
  /** The path as sent: read for its account, never kept. */
  readonly path: string;
  /** The query as sent, without its `?`. */
  readonly query: string;
  /** The route it matched, as registered (`/v1/dle/accounts/:account/…`); null when none did. */
  readonly route: string | null;
  /** When it arrived, real time, epoch milliseconds. */
  readonly atMs: number;
  /** The answer's status; null when a fault dropped the connection. */
  readonly status: number | null;
  readonly durationMs: number;
  /** The fault that answered or delayed it. */
  readonly fault: string | null;
}

/** What a kept request holds of what its client wrote, as a privacy deletion reads it (DEC-PRV-05). */
export interface JournaledRequestText {
  readonly account: string | null;
  /** The kept parameters, decoded, secrets not redacted. */
  readonly parameters: ReadonlyArray<readonly [string, string]>;
}

/** What an entry keeps: its texts are copies of their own, so that nothing of the request's URL stays alive. */
interface Kept {
  readonly id: number;
  readonly atMs: number;
  readonly method: string;
  readonly route: string | null;
  readonly query: string;
  readonly queryTruncated: boolean;
  readonly account: string | null;
  readonly status: number | null;
  readonly durationMs: number;
  readonly fault: string | null;
  /** What it holds, for the byte budget. */
  readonly bytes: number;
}

/** A query parameter named like a secret. */
const secretName = /utk|pass|pwd|secret|token|key|auth|sig|session|cookie|credential/i;
export const redactedValue = "[redacted]";

/** The query's parameters, the values of those named like a secret replaced by "[redacted]". */
export function redactQuery(query: string): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const [name, raw] of splitQueryString(query)) {
    const value = secretName.test(name) ? redactedValue : raw;
    const seen = params[name];
    params[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return params;
}

/**
 * The parameters of `query` that fit whole in its first `maxChars` characters: a parameter cut in two is left
 * out rather than kept in part (a part of an e-mail address would escape a deletion's equality, DEC-PRV-05).
 */
export function truncateQuery(
  query: string,
  maxChars: number = requestJournalQueryChars,
): { text: string; cut: boolean } {
  if (query.length <= maxChars) return { text: query, cut: false };
  const end = query.charAt(maxChars) === "&" ? maxChars : query.lastIndexOf("&", maxChars - 1);
  return { text: end <= 0 ? "" : query.slice(0, end), cut: true };
}

// WHATWG Encoding, in every runtime core runs on (core's tsconfig has no DOM lib).
declare const TextEncoder: new () => { encode(input: string): Uint8Array };
declare const TextDecoder: new () => { decode(input: Uint8Array): string };
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A copy of `text` that shares no memory with the string it was cut from. A slice of a string may keep the
 * whole of it alive (JavaScriptCore's substrings point into their base): a 512-character query cut from a
 * 16 KB URL would hold the 16 KB.
 */
function ownCopy(text: string): string {
  return text === "" ? "" : decoder.decode(encoder.encode(text));
}

/** How many bytes a text holds at most (two a character). */
function textBytes(text: string | null): number {
  return text === null ? 0 : 2 * text.length;
}

/**
 * The request journal (issue 33): the latest requests to the interface routes, within a byte budget. An entry
 * keeps the route's template, never the path as sent; the query's first whole parameters; the account; and
 * numbers. A request that matched no route keeps nothing its client wrote but its method. Recording copies
 * those few texts; the query is parsed only when the journal is asked.
 */
export class RequestJournal {
  /** The byte budget; 0: the journal is off, and records nothing. */
  readonly maxBytes: number;
  /** The entries from `#head` on, oldest first; the slots before it are empty, reused once they are many. */
  #entries: Array<Kept | undefined> = [];
  #head = 0;
  #bytes = 0;
  #lastId = 0;

  constructor(options: { readonly maxBytes?: number } = {}) {
    this.maxBytes = Math.max(0, Math.floor(options.maxBytes ?? defaultRequestJournalBytes));
  }

  /** Whether it records anything (a budget of 0 turns it off). */
  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** Keeps what the journal keeps of an answered request, the oldest entries going while it is over budget. */
  record(request: AnsweredRequest): void {
    if (!this.enabled) return;
    this.#lastId += 1;
    const matched = request.route !== null;
    const query = matched ? truncateQuery(request.query) : { text: "", cut: false };
    const found = matched ? accountOfRequest(request.path, request.query) : null;
    const account = found === null ? null : ownCopy(found.slice(0, requestJournalAccountChars));
    const text = ownCopy(query.text);
    const bytes =
      requestEntryOverheadBytes +
      textBytes(request.method) +
      textBytes(text) +
      textBytes(account) +
      textBytes(request.fault);
    this.#entries.push({
      id: this.#lastId,
      atMs: request.atMs,
      method: request.method,
      route: request.route,
      query: text,
      queryTruncated: query.cut,
      account,
      status: request.status,
      durationMs: request.durationMs,
      fault: request.fault,
      bytes,
    });
    this.#bytes += bytes;
    while (this.#bytes > this.maxBytes && this.#head < this.#entries.length) this.#dropOldest();
  }

  /** How many entries are kept. */
  get size(): number {
    return this.#entries.length - this.#head;
  }

  /** How many bytes the entries kept hold, as the budget counts them. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Forgets every entry (DELETE /admin/requests, POST /admin/reset); ids keep counting up. */
  clear(): void {
    this.#entries = [];
    this.#head = 0;
    this.#bytes = 0;
  }

  /**
   * Forgets every entry `matches` (a privacy deletion's value, DEC-PRV-05) and answers how many; the others
   * keep their order and ids.
   */
  forget(matches: (request: JournaledRequestText) => boolean): number {
    const kept: Kept[] = [];
    for (let index = this.#head; index < this.#entries.length; index += 1) {
      const entry = this.#entries[index] as Kept;
      if (!matches({ account: entry.account, parameters: splitQueryString(entry.query) })) kept.push(entry);
    }
    const forgotten = this.size - kept.length;
    if (forgotten > 0) {
      this.#entries = kept;
      this.#head = 0;
      this.#bytes = kept.reduce((sum, entry) => sum + entry.bytes, 0);
    }
    return forgotten;
  }

  /** The entries matching `filter`, newest first, at most `limit` (default 100). */
  query(filter: RequestJournalFilter = {}): RequestJournalEntry[] {
    const limit = Math.min(filter.limit ?? defaultRequestJournalLimit, maxRequestJournalLimit);
    const method = filter.method?.toUpperCase();
    const found: RequestJournalEntry[] = [];
    for (let index = this.#entries.length - 1; index >= this.#head && found.length < limit; index -= 1) {
      const kept = this.#entries[index] as Kept;
      if (method !== undefined && kept.method !== method) continue;
      if (filter.status !== undefined && kept.status !== filter.status) continue;
      if (filter.account !== undefined && kept.account !== filter.account) continue;
      if (filter.route && (kept.route === null || !filter.route(kept.route))) continue;
      found.push({
        id: kept.id,
        at: new Date(kept.atMs).toISOString(),
        method: kept.method,
        path: kept.route,
        query: redactQuery(kept.query),
        queryTruncated: kept.queryTruncated,
        status: kept.status,
        durationMs: kept.durationMs,
        account: kept.account,
        ...(kept.fault === null ? {} : { fault: kept.fault }),
      });
    }
    return found;
  }

  #dropOldest(): void {
    this.#bytes -= (this.#entries[this.#head] as Kept).bytes;
    this.#entries[this.#head] = undefined;
    this.#head += 1;
    // The emptied slots are given back once they are half the array (each move is paid for by as many drops).
    if (this.#head >= 1024 && this.#head * 2 >= this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
  }
}
