import type { CollectError } from "../../core/errors/index.ts";
import type { CollectMethod, IncomingCollectRequest } from "../../core/ports/index.ts";
import type { Result } from "../../core/result.ts";
import { readBodyWithin } from "./body-reader.ts";

/**
 * A web Request as the collection use case reads it (IncomingCollectRequest). This is the hot path, so it is
 * one object a request and reads nothing before the use case asks: the body reader is a method, not a closure
 * made for each request, and the use case parses the query string only once the bot filter let the request in.
 */
export class WebCollectRequest implements IncomingCollectRequest {
  readonly url: string;
  readonly headers: Headers;

  constructor(
    private readonly request: Request,
    readonly method: CollectMethod,
    readonly address: string,
  ) {
    this.url = request.url;
    this.headers = request.headers;
  }

  readBody(maxBytes: number): Promise<Result<Uint8Array, CollectError>> {
    return readBodyWithin(this.request, maxBytes);
  }
}
