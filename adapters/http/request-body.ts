import { err, ok, type Result } from "../../core/result.ts";

export type BodyEncoding = "identity" | "gzip";
export type BodyProblem = "too-large" | "bad-encoding";

/** `Content-Encoding` gzip (or x-gzip) or none; null for anything else, which callers refuse. */
export function contentEncodingOf(header: string | null): BodyEncoding | null {
  const value = (header ?? "").trim().toLowerCase();
  if (value === "" || value === "identity") return "identity";
  if (value === "gzip" || value === "x-gzip") return "gzip";
  return null;
}

/**
 * Compressed bytes read at most, past the limit on what they decompress to: deflate grows incompressible data
 * by a few bytes per block only, so a body within the limit always fits, and a stream of empty blocks that
 * decompresses to nothing cannot keep the server reading.
 */
function compressedAllowance(maxBytes: number): number {
  return maxBytes + 64 * 1024;
}

class StreamTooLarge extends Error {}

/** A stream that errors once more than `maxBytes` went through it, and says how many it saw. */
export function capped(maxBytes: number): TransformStream<Uint8Array, Uint8Array> & { readonly seen: () => number } {
  let seen = 0;
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new StreamTooLarge());
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
 * DEC-DLE-04, DEC-COL-04: a request body of at most `maxBytes` (after decompression, when gzip). Reading
 * stops as soon as the limit is passed (the stream is cancelled) and a gzip body is inflated chunk by chunk as
 * it arrives, so neither a large body nor a gzip bomb is ever held in memory much past the limit. A body
 * that is not valid gzip is "bad-encoding"; an empty gzip body is an empty body.
 */
export async function readRequestBody(
  request: Request,
  maxBytes: number,
  encoding: BodyEncoding = "identity",
): Promise<Result<Uint8Array, BodyProblem>> {
  if (!request.body) return ok(new Uint8Array(0));
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared === 0) return ok(new Uint8Array(0));
  const rawLimit = encoding === "gzip" ? compressedAllowance(maxBytes) : maxBytes;
  if (Number.isFinite(declared) && declared > rawLimit) {
    await request.body.cancel().catch(() => undefined);
    return err("too-large");
  }
  const cap = capped(rawLimit);
  const counted = request.body.pipeThrough(cap);
  const stream =
    encoding === "gzip"
      ? counted.pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>)
      : counted;
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
        return err("too-large");
      }
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    if (error instanceof StreamTooLarge) return err("too-large");
    if (encoding === "gzip") return cap.seen() === 0 ? ok(new Uint8Array(0)) : err("bad-encoding");
    throw error;
  }
  return ok(concat(chunks, size));
}

/** A plain (not encoded) body of at most `maxBytes`. */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Result<Uint8Array, "too-large">> {
  return readRequestBody(request, maxBytes, "identity") as Promise<Result<Uint8Array, "too-large">>;
}

/** The bytes as UTF-8 text (a leading byte order mark dropped), or null when they are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** The media type of a Content-Type header, lower-cased and without parameters (`charset`, ...). */
export function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Form fields of an application/x-www-form-urlencoded body; a repeated field keeps its first value. */
export async function readFormFields(
  request: Request,
  maxBytes: number,
): Promise<Result<Map<string, string>, "too-large" | "not-a-form">> {
  if (mediaType(request.headers.get("content-type")) !== "application/x-www-form-urlencoded") return err("not-a-form");
  const body = await readBodyBytes(request, maxBytes);
  if (!body.ok) return body;
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(new TextDecoder().decode(body.value))) {
    if (!fields.has(name)) fields.set(name, value);
  }
  return ok(fields);
}
