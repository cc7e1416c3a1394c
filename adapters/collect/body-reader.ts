import { collectError, type CollectError } from "../../core/errors/collect.errors.ts";
import { err, ok, type Result } from "../../core/result.ts";

/**
 * Slack on the compressed size: deflate's worst case adds 5 bytes per 16 KiB block plus the gzip header
 * and trailer, so a body whose inflated size is within the limit is never refused for its gzip form.
 */
const compressedSlackBytes = 64 * 1024;

type Encoding = "identity" | "gzip";

/** DEC-COL-04: `Content-Encoding` gzip (or x-gzip) or none; anything else is refused. */
function encodingOf(header: string | null): Encoding | null {
  const value = (header ?? "").trim().toLowerCase();
  if (value === "" || value === "identity") return "identity";
  if (value === "gzip" || value === "x-gzip") return "gzip";
  return null;
}

class CompressedTooLarge extends Error {}

/** Counts the bytes passing through and errors the stream once there are more than `maxBytes`. */
function capBytes(maxBytes: number): TransformStream<Uint8Array, Uint8Array> & { readonly seen: () => number } {
  let seen = 0;
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new CompressedTooLarge());
      else controller.enqueue(chunk);
    },
  });
  return Object.assign(stream, { seen: () => seen });
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * DEC-DLE-04, DEC-COL-04, COL-06: the request body, inflated when gzip, refused once it passes `maxBytes`
 * (after decompression). Reading stops at the limit: the stream is cancelled, and a gzip body is inflated
 * chunk by chunk as it is read, so a gzip bomb is never inflated much past the limit (one 64 KiB chunk).
 */
export async function readBodyWithin(request: Request, maxBytes: number): Promise<Result<Uint8Array, CollectError>> {
  const encoding = encodingOf(request.headers.get("content-encoding"));
  if (encoding === null) {
    await request.body?.cancel().catch(() => undefined);
    return err(collectError("unsupportedEncoding"));
  }
  if (!request.body) return ok(new Uint8Array(0));
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared === 0) return ok(new Uint8Array(0));
  const compressedLimit = encoding === "gzip" ? maxBytes + compressedSlackBytes : maxBytes;
  if (Number.isFinite(declared) && declared > compressedLimit) {
    await request.body.cancel().catch(() => undefined);
    return err(collectError("bodyTooLarge"));
  }

  const cap = capBytes(compressedLimit);
  const counted = request.body.pipeThrough(cap);
  const stream = encoding === "gzip" ? counted.pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>) : counted;
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return err(collectError("bodyTooLarge"));
      }
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    if (error instanceof CompressedTooLarge) return err(collectError("bodyTooLarge"));
    if (encoding === "gzip" && cap.seen() === 0) return ok(new Uint8Array(0));
    if (encoding === "gzip") return err(collectError("invalidGzip"));
    throw error;
  }
  return ok(concat(chunks, size));
}
