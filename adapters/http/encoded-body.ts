import { err, ok, type Result } from "../../core/result.ts";
import { readBodyBytes } from "./request-body.ts";

export type EncodedBodyProblem = "too-large" | "bad-encoding";

/**
 * Compressed bytes read at most, past the limit on what they decompress to: deflate never grows data by
 * more than a few bytes per block, so a body within the limit always fits, and a stream of empty blocks
 * that decompresses to nothing cannot keep the server reading.
 */
function compressedAllowance(maxBytes: number): number {
  return maxBytes + Math.ceil(maxBytes / 8) + 1024;
}

/** A stream that errors once more than `maxBytes` went through it. */
function capped(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new Error("too-large"));
      else controller.enqueue(chunk);
    },
  });
}

/** A gunzipping stream of bytes (the DOM typings give DecompressionStream a wider writable side). */
function gunzip(): TransformStream<Uint8Array, Uint8Array> {
  return new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>;
}

/**
 * DEC-DLE-04, DEC-COL-04: a request body, gunzipped when `encoding` is gzip, of at most `maxBytes` after
 * decompression. Reading (and decompressing) stops as soon as the limit is passed, so neither a large
 * body nor a small gzip bomb is ever held in memory. A body that is not valid gzip is "bad-encoding".
 */
export async function readDecodedBody(request: Request, encoding: "identity" | "gzip", maxBytes: number): Promise<Result<Uint8Array, EncodedBodyProblem>> {
  if (encoding === "identity") return readBodyBytes(request, maxBytes);
  if (!request.body) return ok(new Uint8Array(0));
  const reader = request.body.pipeThrough(capped(compressedAllowance(maxBytes))).pipeThrough(gunzip()).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return err("too-large");
      }
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    return err(error instanceof Error && error.message === "too-large" ? "too-large" : "bad-encoding");
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return ok(bytes);
}

/** The bytes as UTF-8 text (a leading byte order mark dropped), or null when they are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
