import { accountOfRequest, compilePathPattern, splitQueryString } from "./fault-plan.rules.ts";

/** How many requests the journal keeps: the newest, the oldest forgotten first. */
export const requestJournalCapacity = 10_000;
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
  /** The path as sent; a moments lookup's visitor segment as `…` (PRV-09, as the log keeps it). */
  readonly path: string;
  /** The query's parameters, those named like a secret (utk, password, key, token, ...) as "[redacted]". */
  readonly query: Readonly<Record<string, string | string[]>>;
  /** The answer's status; null when a fault dropped the connection. */
  readonly status: number | null;
  readonly durationMs: number;
  /** The path's account, or /event's svc_account; null when it has none. */
  readonly account: string | null;
  /** The id of the fault that answered or delayed it, when one did. */
  readonly fault?: string;
}

/** What to look for in the journal; every field given must match. */
export interface RequestJournalFilter {
  readonly method?: string;
  /** A path pattern as a fault's: `*` any run of characters, `{name}` one segment. */
  readonly path?: string;
  readonly status?: number;
  readonly account?: string;
  readonly limit?: number;
}

/** What the adapter records: the request's own text, read only when someone asks (the /event path stays cheap). */
interface Recorded {
  readonly id: number;
  readonly atMs: number;
  readonly method: string;
  readonly url: string;
  readonly status: number | null;
  readonly durationMs: number;
  readonly fault: string | null;
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

/** PRV-09: a moments lookup's visitor (which may hold an e-mail address) is not kept as it was sent. */
function withoutVisitor(path: string): string {
  if (!path.startsWith("/personalization/")) return path;
  const segments = path.split("/");
  if (segments[8] === "visitors" && segments.length > 9 && segments[9] !== "") segments[9] = "…";
  return segments.join("/");
}

function splitUrl(url: string): { path: string; query: string } {
  const scheme = url.indexOf("//");
  const start = scheme < 0 ? url.indexOf("/") : url.indexOf("/", scheme + 2);
  const rest = start < 0 ? "/" : url.slice(start);
  const hash = rest.indexOf("#");
  const text = hash < 0 ? rest : rest.slice(0, hash);
  const question = text.indexOf("?");
  return question < 0 ? { path: text, query: "" } : { path: text.slice(0, question), query: text.slice(question + 1) };
}

/**
 * The request journal (issue 33): the latest requests to the interface routes, in a ring of a fixed size.
 * Recording writes one entry and reads nothing; the path, query and account are read from the URL when the
 * journal is asked.
 */
export class RequestJournal {
  readonly capacity: number;
  #ring: Array<Recorded | undefined>;
  #next = 0;
  #count = 0;
  #lastId = 0;

  constructor(capacity: number = requestJournalCapacity) {
    this.capacity = capacity;
    this.#ring = new Array(capacity);
  }

  /** Records an answered request; `atMs` real time, `status` null when the connection was dropped. */
  record(method: string, url: string, atMs: number, status: number | null, durationMs: number, fault: string | null) {
    this.#lastId += 1;
    this.#ring[this.#next] = { id: this.#lastId, atMs, method, url, status, durationMs, fault };
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#count < this.capacity) this.#count += 1;
  }

  /** How many entries are kept. */
  get size(): number {
    return this.#count;
  }

  /** Forgets every entry (DELETE /admin/requests, POST /admin/reset); ids keep counting up. */
  clear(): void {
    this.#ring = new Array(this.capacity);
    this.#next = 0;
    this.#count = 0;
  }

  /** The entries matching `filter`, newest first, at most `limit` (default 100). */
  query(filter: RequestJournalFilter = {}): RequestJournalEntry[] {
    const limit = Math.min(filter.limit ?? defaultRequestJournalLimit, maxRequestJournalLimit);
    const method = filter.method?.toUpperCase();
    const matchesPath = filter.path === undefined ? null : compilePathPattern(filter.path);
    const found: RequestJournalEntry[] = [];
    for (let back = 1; back <= this.#count && found.length < limit; back += 1) {
      const recorded = this.#ring[(this.#next - back + this.capacity) % this.capacity];
      if (recorded === undefined) continue;
      if (method !== undefined && recorded.method !== method) continue;
      if (filter.status !== undefined && recorded.status !== filter.status) continue;
      const { path, query } = splitUrl(recorded.url);
      if (matchesPath && !matchesPath(path)) continue;
      const account = accountOfRequest(path, query);
      if (filter.account !== undefined && account !== filter.account) continue;
      found.push({
        id: recorded.id,
        at: new Date(recorded.atMs).toISOString(),
        method: recorded.method,
        path: withoutVisitor(path),
        query: redactQuery(query),
        status: recorded.status,
        durationMs: recorded.durationMs,
        account,
        ...(recorded.fault === null ? {} : { fault: recorded.fault }),
      });
    }
    return found;
  }
}
