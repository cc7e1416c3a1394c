import type { CollectError } from "../errors/collect.errors.ts";
import type { Result } from "../result.ts";

/** COL-01, COL-02: the methods that collect an event (a HEAD or an OPTIONS collects nothing). */
export type CollectMethod = "GET" | "POST";

/** The request headers collection reads; the web platform's `Headers` is one. Absent: null. */
export interface CollectHeaders {
  get(name: "user-agent" | "cookie" | "referer" | "content-type"): string | null;
}

/**
 * One request to the collection endpoint (COL-*), as the HTTP adapter hands it over. Nothing in it is read
 * before the use case asks: a filtered bot costs no query parsing and no body reading.
 */
export interface IncomingCollectRequest {
  readonly method: CollectMethod;
  /** The request's URL as received: its query string holds a GET event's parameters (core/collect/query-string.rules.ts). */
  readonly url: string;
  readonly headers: CollectHeaders;
  /** The client's address as the socket saw it: the source the fairness share and the byte budget count. */
  readonly address: string;
  /**
   * DEC-COL-04, COL-06: the body, inflated when gzip, refused once it passes `maxBytes` after decompression
   * (reading stops at the limit); empty when there is none. Its refusals are the collection endpoint's own
   * (an unsupported Content-Encoding, a body too large, gzip that is not).
   */
  readBody(maxBytes: number): Promise<Result<Uint8Array, CollectError>>;
}
