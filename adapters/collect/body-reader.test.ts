import { describe, expect, it } from "bun:test";
import { gzipSync } from "node:zlib";
import { readBodyWithin } from "./body-reader.ts";

const limit = 1_048_576;

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request("http://svc-hub.test/event", { method: "POST", body, headers });
}

/** A body sent as a stream without Content-Length (chunked), counting how much of it was pulled. */
function streamed(
  bytes: Uint8Array,
  chunkSize = 16 * 1024,
): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
  return { body, pulled: () => Math.min(offset, bytes.byteLength) };
}

const codeOf = (result: Awaited<ReturnType<typeof readBodyWithin>>) => (result.ok ? "ok" : result.error.code);

describe("reading a collection body (DEC-DLE-04, DEC-COL-04)", () => {
  it("reads a body up to exactly 1 MiB", async () => {
    const result = await readBodyWithin(post("x".repeat(limit)), limit);
    expect(result.ok && result.value.byteLength).toBe(limit);
  });

  it("refuses 1 MiB + 1 byte", async () => {
    expect(codeOf(await readBodyWithin(post("x".repeat(limit + 1)), limit))).toBe("bodyTooLarge");
  });

  it("refuses a declared Content-Length over the limit without reading the body", async () => {
    const { body, pulled } = streamed(new Uint8Array(4 * limit));
    const request = new Request("http://svc-hub.test/event", {
      method: "POST",
      body,
      headers: { "content-length": String(4 * limit) },
    });
    expect(codeOf(await readBodyWithin(request, limit))).toBe("bodyTooLarge");
    expect(pulled()).toBeLessThanOrEqual(64 * 1024);
  });

  it("stops reading a chunked body at the limit", async () => {
    const { body, pulled } = streamed(new Uint8Array(20 * limit));
    expect(codeOf(await readBodyWithin(post(body), limit))).toBe("bodyTooLarge");
    expect(pulled()).toBeLessThan(limit + 256 * 1024);
  });

  it("inflates gzip and counts the limit after decompression", async () => {
    const small = await readBodyWithin(post(gzipSync('{"a":1}'), { "content-encoding": "gzip" }), limit);
    expect(small.ok && new TextDecoder().decode(small.value)).toBe('{"a":1}');
    const exact = await readBodyWithin(post(gzipSync("x".repeat(limit)), { "content-encoding": "GZIP" }), limit);
    expect(exact.ok && exact.value.byteLength).toBe(limit);
    expect(
      codeOf(await readBodyWithin(post(gzipSync("x".repeat(limit + 1)), { "content-encoding": "gzip" }), limit)),
    ).toBe("bodyTooLarge");
  });

  it("a gzip bomb is refused after inflating little more than the limit, and only a little of it is read", async () => {
    const bomb = gzipSync(new Uint8Array(512 * limit)); // 512 MiB of zeros in about 0.5 MiB
    const { body, pulled } = streamed(bomb, 4 * 1024);
    const before = process.memoryUsage().rss;
    expect(codeOf(await readBodyWithin(post(body, { "content-encoding": "gzip" }), limit))).toBe("bodyTooLarge");
    expect(pulled()).toBeLessThan(bomb.byteLength);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * limit);
  });

  it("a body that is not gzip while saying so is refused as invalid gzip", async () => {
    expect(codeOf(await readBodyWithin(post('{"a":1}', { "content-encoding": "gzip" }), limit))).toBe("invalidGzip");
  });

  it("refuses encodings other than gzip and identity", async () => {
    expect(codeOf(await readBodyWithin(post("{}", { "content-encoding": "br" }), limit))).toBe("unsupportedEncoding");
    expect(codeOf(await readBodyWithin(post("{}", { "content-encoding": "identity" }), limit))).toBe("ok");
  });

  it("an empty body reads as no bytes, with or without gzip", async () => {
    for (const request of [post(null), post(""), post("", { "content-encoding": "gzip" })]) {
      const result = await readBodyWithin(request, limit);
      expect(result.ok && result.value.byteLength).toBe(0);
    }
  });
});
