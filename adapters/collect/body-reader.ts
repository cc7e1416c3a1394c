import { type CollectError, collectError } from "../../core/errors/index.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { contentEncodingOf, readRequestBody } from "../http/request-body.ts";

/**
 * DEC-COL-04, COL-06: the body of POST /event, inflated when gzip, refused once it passes `maxBytes` after
 * decompression (reading stops at the limit), answered in the collection endpoint's refusals.
 */
export async function readBodyWithin(request: Request, maxBytes: number): Promise<Result<Uint8Array, CollectError>> {
  const encoding = contentEncodingOf(request.headers.get("content-encoding"));
  if (encoding === null) {
    await request.body?.cancel().catch(() => undefined);
    return err(collectError("unsupportedEncoding"));
  }
  const body = await readRequestBody(request, maxBytes, encoding);
  if (body.ok) return ok(body.value);
  return err(collectError(body.error === "too-large" ? "bodyTooLarge" : "invalidGzip"));
}
