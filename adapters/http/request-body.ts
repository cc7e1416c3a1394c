import { err, ok, type Result } from "../../core/result.ts";

/**
 * Reads a request body up to `maxBytes`, stopping (and cancelling the stream) as soon as it is larger,
 * so an oversized body is never held in memory.
 */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Result<Uint8Array, "too-large">> {
  if (!request.body) return ok(new Uint8Array(0));
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await request.body.cancel().catch(() => undefined);
    return err("too-large");
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
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
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return ok(bytes);
}

/** The media type of a Content-Type header, lower-cased and without parameters (`charset`, ...). */
export function mediaType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Form fields of an application/x-www-form-urlencoded body; a repeated field keeps its first value. */
export async function readFormFields(request: Request, maxBytes: number): Promise<Result<Map<string, string>, "too-large" | "not-a-form">> {
  if (mediaType(request.headers.get("content-type")) !== "application/x-www-form-urlencoded") return err("not-a-form");
  const body = await readBodyBytes(request, maxBytes);
  if (!body.ok) return body;
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(new TextDecoder().decode(body.value))) {
    if (!fields.has(name)) fields.set(name, value);
  }
  return ok(fields);
}
