import { accountOfRequest, type PathMatcher, splitQueryString } from "./fault-plan.rules.ts";
import { differencesOf, type RequestDifference, type RequestMatcher, rankNearMisses } from "./request-matcher.rules.ts";
import {
  type JournaledBodyView,
  redactFormText,
  redactHeaders,
  redactQuery,
  utf8TextOf,
  viewBody,
} from "./request-redaction.rules.ts";

/**
 * How many bytes the request journal may hold unless told (SVC_REQUEST_JOURNAL_BYTES): past it the oldest
 * entries go. 0 turns the journal off.
 */
export const defaultRequestJournalBytes = 4 * 1024 * 1024;
/** How many characters of a request's query the `query` field shows at most: the whole parameters that fit. */
export const requestJournalQueryChars = 512;
/** How many characters of a request's account an entry keeps at most (DLE-ERR-02's 250 for account and profile together). */
export const requestJournalAccountChars = 250;
/** How many bytes of a request's body, and of its answer's, an entry keeps at most (issue 43). */
export const requestJournalBodyBytes = 16 * 1024;
/**
 * What an entry costs beside its own texts and bodies: the object with its numbers, the texts' headers, its
 * place in the array. Measured under Bun at about 150 bytes; counted high, as its texts are (two bytes a character).
 */
export const requestEntryOverheadBytes = 256;
/** What a kept header costs beside its name and value: its pair and the strings' headers, counted high. */
export const requestHeaderOverheadBytes = 48;
/** How many entries `GET /admin/requests` and a find answer unless told, and at most. */
export const defaultRequestJournalLimit = 100;
export const maxRequestJournalLimit = 1000;
/** How many near misses a find or a count that matched nothing answers (as WireMock's). */
export const requestNearMissCount = 3;

/** A request's headers, or its answer's, as name/value pairs in the order they came. */
export type HeaderPairs = ReadonlyArray<readonly [string, string]>;

/** A body as the adapter read it: its first bytes, at most requestJournalBodyBytes, and whether it had more. */
export interface CapturedBody {
  readonly bytes: Uint8Array;
  readonly truncated: boolean;
}

/** An answer as the adapter read it. */
export interface CapturedResponse {
  readonly headers: HeaderPairs;
  /** null when it had none (a HEAD, a 204) or was a stream that is never read (an event stream). */
  readonly body: CapturedBody | null;
}

/** A request as the journal answers it (issue 33; whole since issue 43). */
export interface RequestJournalEntry {
  /** 1, 2, 3, ... in the order the requests were answered on this node. */
  readonly id: number;
  /** When it arrived: real time (not the virtual clock), ISO 8601 UTC. */
  readonly at: string;
  readonly method: string;
  /** The route it matched, as registered (`/v1/dle/accounts/:account/…`); null when none did. */
  readonly path: string | null;
  /** The path and query as sent, the values of query parameters named like a secret as "[redacted]". */
  readonly url: string;
  /**
   * The query's parameters that fit whole in its first requestJournalQueryChars characters, those named like a
   * secret (utk, password, key, token, ...) as "[redacted]".
   */
  readonly query: Readonly<Record<string, string | string[]>>;
  /** Whether parameters were left out of `query` because the query was longer (`url` has them all). */
  readonly queryTruncated: boolean;
  /** The answer's status; null when a fault dropped the connection. */
  readonly status: number | null;
  readonly durationMs: number;
  /** The path's account, or /event's svc_account (at most requestJournalAccountChars); null when it has none. */
  readonly account: string | null;
  /** The id of the fault that answered or delayed it, when one did. */
  readonly fault?: string;
  /** Its headers (secrets redacted) and body. */
  readonly request: JournaledMessage;
  /** The answer's headers (secrets redacted) and body; null when a fault dropped the connection. */
  readonly response: JournaledMessage | null;
}

/** Headers and a body, as an entry answers them. */
export interface JournaledMessage {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: JournaledBodyView | null;
}

/** What to look for in the journal by `GET /admin/requests`; every field given must match. */
export interface RequestJournalFilter {
  readonly method?: string;
  /** A test of the route's template (the host compiles the `path` pattern it was given). */
  readonly route?: PathMatcher;
  readonly status?: number;
  readonly account?: string;
  readonly limit?: number;
}

/** A request once answered, as the adapter hands it over. */
export interface AnsweredRequest {
  /** The method, as the metrics name it (an unknown one as OTHER). */
  readonly method: string;
  /** The path as sent. */
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
  /** The request's headers (none when left out). */
  readonly headers?: HeaderPairs;
  /** The request's body; null or left out when it had none. */
  readonly body?: CapturedBody | null;
  /** The answer; null or left out when a fault dropped the connection. */
  readonly response?: CapturedResponse | null;
}

/** What a kept request holds of what its client wrote or was answered, as a privacy deletion reads it (DEC-PRV-05). */
export interface JournaledRequestText {
  readonly account: string | null;
  /** The query's parameters, decoded, secrets not redacted. */
  readonly parameters: ReadonlyArray<readonly [string, string]>;
  /**
   * Every other text it holds, decoded: the path's segments, the headers' values (each cookie's value too), the
   * fields of a form body, the whole text of any other body of the request or the answer that is UTF-8.
   */
  readonly texts: readonly string[];
}

/** A find's answer: the requests that matched (at most the limit, newest first), how many did, and the near misses. */
export interface RequestSearch {
  readonly count: number;
  readonly requests: RequestJournalEntry[];
  /** When none matched: the closest requests, closest first, each with what differed. */
  readonly nearMisses: RequestNearMiss[];
}

export interface RequestNearMiss {
  readonly request: RequestJournalEntry;
  readonly differences: RequestDifference[];
}

/** What an entry keeps: the request and its answer as the adapter read them. */
interface Kept {
  readonly id: number;
  readonly atMs: number;
  readonly method: string;
  readonly route: string | null;
  readonly path: string;
  readonly query: string;
  readonly account: string | null;
  readonly status: number | null;
  readonly durationMs: number;
  readonly fault: string | null;
  readonly headers: HeaderPairs;
  readonly body: CapturedBody | null;
  readonly response: CapturedResponse | null;
  /** What it holds, for the byte budget. */
  readonly bytes: number;
}

/**
 * The parameters of `query` that fit whole in its first `maxChars` characters: a parameter cut in two is left
 * out rather than shown in part.
 */
export function truncateQuery(
  query: string,
  maxChars: number = requestJournalQueryChars,
): { text: string; cut: boolean } {
  if (query.length <= maxChars) return { text: query, cut: false };
  const end = query.charAt(maxChars) === "&" ? maxChars : query.lastIndexOf("&", maxChars - 1);
  return { text: end <= 0 ? "" : query.slice(0, end), cut: true };
}

/** How many bytes a text holds at most (two a character). */
function textBytes(text: string | null): number {
  return text === null ? 0 : 2 * text.length;
}

function headerBytes(headers: HeaderPairs): number {
  let bytes = 0;
  for (const [name, value] of headers) bytes += requestHeaderOverheadBytes + textBytes(name) + textBytes(value);
  return bytes;
}

// WHATWG Encoding, in every runtime core runs on (core's tsconfig has no DOM lib).
declare const TextEncoder: new () => { encode(input: string): Uint8Array };
declare const TextDecoder: new () => { decode(input: Uint8Array): string };
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A copy of `text` that shares no memory with the string it was cut from. A slice of a string may keep the
 * whole of it alive (JavaScriptCore's substrings point into their base): a path cut from a URL would hold the
 * whole URL, and an account read from a 16 KB query the 16 KB.
 */
function ownCopy(text: string): string {
  return text === "" ? "" : decoder.decode(encoder.encode(text));
}

/** What an entry of this request holds, as the budget counts it. */
function weightOf(request: AnsweredRequest, account: string | null): number {
  return (
    requestEntryOverheadBytes +
    textBytes(request.method) +
    textBytes(request.path) +
    textBytes(request.query) +
    textBytes(account) +
    textBytes(request.fault) +
    headerBytes(request.headers ?? []) +
    (request.body?.bytes.length ?? 0) +
    (request.response ? headerBytes(request.response.headers) + (request.response.body?.bytes.length ?? 0) : 0)
  );
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function contentTypeOf(headers: HeaderPairs): string {
  return headers.find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? "";
}

/** The texts of a body a privacy deletion compares: a form's field values, or the whole UTF-8 text. */
function bodyTexts(body: CapturedBody | null, headers: HeaderPairs): string[] {
  if (body === null) return [];
  const text = utf8TextOf(body.bytes);
  if (text === null) return [];
  if (contentTypeOf(headers).toLowerCase().includes("x-www-form-urlencoded"))
    return splitQueryString(text).map(([, value]) => value);
  return [text];
}

function headerTexts(headers: HeaderPairs): string[] {
  const texts: string[] = [];
  for (const [name, value] of headers) {
    texts.push(value);
    if (/^(cookie|set-cookie)$/i.test(name))
      for (const pair of value.split(";")) texts.push(decodeSegment(pair.slice(pair.indexOf("=") + 1).trim()));
  }
  return texts;
}

/**
 * The entry's account: the one its path or query names, else a POST to /event's `svc_account` in its JSON body
 * (read when the journal is asked, not when the request is recorded).
 */
function accountOf(kept: Kept): string | null {
  if (kept.account !== null || kept.body === null || !(kept.path === "/event" || kept.path === "/event/"))
    return kept.account;
  const text = utf8TextOf(kept.body.bytes);
  if (text === null || !text.includes("svc_account")) return null;
  try {
    const value: unknown = JSON.parse(text);
    const account =
      value !== null && typeof value === "object" ? (value as Record<string, unknown>).svc_account : undefined;
    return typeof account === "string" && account !== "" ? account.slice(0, requestJournalAccountChars) : null;
  } catch {
    return null;
  }
}

function textOf(kept: Kept): JournaledRequestText {
  return {
    account: accountOf(kept),
    parameters: splitQueryString(kept.query),
    texts: [
      ...kept.path.split("/").map(decodeSegment),
      ...headerTexts(kept.headers),
      ...bodyTexts(kept.body, kept.headers),
      ...(kept.response
        ? [...headerTexts(kept.response.headers), ...bodyTexts(kept.response.body, kept.response.headers)]
        : []),
    ],
  };
}

function messageOf(headers: HeaderPairs, body: CapturedBody | null): JournaledMessage {
  return {
    headers: redactHeaders(headers),
    body: body === null ? null : viewBody(body.bytes, body.truncated, headers),
  };
}

/** An entry as the journal answers it: secrets redacted, bodies as text or base64. */
function viewOf(kept: Kept): RequestJournalEntry {
  const shown = truncateQuery(kept.query);
  return {
    id: kept.id,
    at: new Date(kept.atMs).toISOString(),
    method: kept.method,
    path: kept.route,
    url: kept.query === "" ? kept.path : `${kept.path}?${redactFormText(kept.query)}`,
    query: redactQuery(shown.text),
    queryTruncated: shown.cut,
    status: kept.status,
    durationMs: kept.durationMs,
    account: accountOf(kept),
    ...(kept.fault === null ? {} : { fault: kept.fault }),
    request: messageOf(kept.headers, kept.body),
    response: kept.response === null ? null : messageOf(kept.response.headers, kept.response.body),
  };
}

/**
 * The request journal (issues 33 and 43): the latest requests to the interface routes, whole (the path and
 * query as sent, the headers, the first requestJournalBodyBytes of the body, and the same of the answer),
 * within a byte budget. Recording keeps what the adapter read, as it read it; secrets are redacted and bodies
 * decoded only when the journal is asked.
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

  /** Keeps an answered request, the oldest entries going while it is over budget. */
  record(request: AnsweredRequest): void {
    if (!this.enabled) return;
    this.#lastId += 1;
    const found = accountOfRequest(request.path, request.query);
    const account = found === null ? null : ownCopy(found.slice(0, requestJournalAccountChars));
    // Copies: the path and the query are slices of the request's URL, which they would otherwise keep alive.
    const kept = { ...request, path: ownCopy(request.path), query: ownCopy(request.query) };
    const bytes = weightOf(kept, account);
    this.#entries.push({
      id: this.#lastId,
      atMs: request.atMs,
      method: request.method,
      route: request.route,
      path: kept.path,
      query: kept.query,
      account,
      status: request.status,
      durationMs: request.durationMs,
      fault: request.fault,
      headers: request.headers ?? [],
      body: request.body ?? null,
      response: request.response ?? null,
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
    for (const entry of this.#newestFirst()) if (!matches(textOf(entry))) kept.push(entry);
    kept.reverse();
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
    for (const kept of this.#newestFirst()) {
      if (found.length >= limit) break;
      if (method !== undefined && kept.method !== method) continue;
      if (filter.status !== undefined && kept.status !== filter.status) continue;
      if (filter.account !== undefined && accountOf(kept) !== filter.account) continue;
      if (filter.route && (kept.route === null || !filter.route(kept.route))) continue;
      found.push(viewOf(kept));
    }
    return found;
  }

  /**
   * The entries `matcher` matches (issue 43), newest first, at most `limit`, and how many there are; when there
   * are none, the requestNearMissCount closest, with what differed (as WireMock's near misses).
   */
  find(matcher: RequestMatcher, limit: number = defaultRequestJournalLimit): RequestSearch {
    const most = Math.min(limit, maxRequestJournalLimit);
    const requests: RequestJournalEntry[] = [];
    const misses: RequestNearMiss[] = [];
    let count = 0;
    for (const kept of this.#newestFirst()) {
      const entry = viewOf(kept);
      const differences = differencesOf(matcher, entry);
      if (differences.length === 0) {
        count += 1;
        if (requests.length < most) requests.push(entry);
      } else if (count === 0) {
        misses.push({ request: entry, differences });
      }
    }
    return { count, requests, nearMisses: count > 0 ? [] : rankNearMisses(misses, requestNearMissCount) };
  }

  *#newestFirst(): Generator<Kept> {
    for (let index = this.#entries.length - 1; index >= this.#head; index -= 1) yield this.#entries[index] as Kept;
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
