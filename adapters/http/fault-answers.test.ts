/**
 * Issue 43, point 5 in-process: faults complete. A probability with a seed (repeatable), malformed answers (a
 * cut body, invalid JSON, a wrong Content-Type), a trickled body (counted in chunks, never timed), and matching
 * on headers and on a body JSON path.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { openInProcessDemo } from "./in-process-demo.ts";

const admin = { authorization: "Bearer test-admin-token", "content-type": "application/json" };
const event = "/event?svc_account=acme&svc_profile=main&tapid=1";
const closes: Array<() => Promise<unknown>> = [];
afterEach(() => Promise.all(closes.splice(0).map((close) => close())));

async function open() {
  const { call } = await openInProcessDemo("test-admin-token", (close) => closes.push(close));
  const addFault = async (fault: Record<string, unknown>) => {
    const answer = await call("/admin/faults", { method: "POST", headers: admin, body: JSON.stringify(fault) });
    expect(answer.status).toBe(201);
    return (await answer.json()) as Record<string, unknown>;
  };
  return { call, addFault };
}

/** The chunks of a body as its stream gives them. */
async function chunksOf(answer: Response): Promise<string[]> {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of answer.body as ReadableStream<Uint8Array>) chunks.push(decoder.decode(chunk));
  return chunks;
}

describe("issue 43, point 5: faults complete", () => {
  it("a probability with a seed fails the same requests in every run", async () => {
    const runs: string[] = [];
    for (const _ of [1, 2]) {
      const { call, addFault } = await open();
      const added = await addFault({ path: "/event", status: 503, probability: 0.5, seed: 43, times: 100 });
      expect(added).toMatchObject({ probability: 0.5, seed: 43, malformed: null, matchJsonPath: null });
      let statuses = "";
      for (let request = 0; request < 20; request += 1) statuses += (await call(event)).status === 503 ? "F" : ".";
      runs.push(statuses);
    }
    expect(runs[0]).toBe(runs[1] as string);
    expect(runs[0]).toContain("F");
    expect(runs[0]).toContain(".");
  });

  it("invalid-json answers half the body's text as application/json, which no parser takes", async () => {
    const { call, addFault } = await open();
    await addFault({ path: "/event", status: 200, body: { ok: true, items: [1, 2, 3] }, malformed: "invalid-json" });
    const answer = await call(event);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    const text = await answer.text();
    expect('{"ok":true,"items":[1,2,3]}'.startsWith(text)).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
  });

  it("wrong-content-type swaps JSON for text/html, and svc-hub's own GIF for application/json", async () => {
    const { call, addFault } = await open();
    await addFault({ path: "/v1/login", status: 503, body: { returnCode: 1503 }, malformed: "wrong-content-type" });
    const json = await call("/v1/login", { method: "POST" });
    expect([json.status, json.headers.get("content-type")]).toEqual([503, "text/html; charset=utf-8"]);
    expect(await json.json()).toEqual({ returnCode: 1503 });
    await addFault({ path: "/event", malformed: "wrong-content-type" });
    const gif = await call(event);
    expect([gif.status, gif.headers.get("content-type"), gif.headers.get("x-svc-hub-fault")]).toEqual([
      200,
      "application/json",
      "f2",
    ]);
  });

  it("cut-body sends the status, the headers and half the body, then fails the body", async () => {
    const { call, addFault } = await open();
    await addFault({ path: "/event", status: 200, body: "0123456789", malformed: "cut-body" });
    const answer = await call(event);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const received: string[] = [];
    const outcome = await (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of answer.body as ReadableStream<Uint8Array>) received.push(decoder.decode(chunk));
    })().then(
      () => "ended",
      () => "failed",
    );
    expect([outcome, received.join("")]).toEqual(["failed", "01234"]);
  });

  it("trickles a body in chunks of a tenth of a second's worth of its rate", async () => {
    const { call, addFault } = await open();
    const body = "x".repeat(95);
    await addFault({ path: "/event", status: 200, body, trickleBytesPerSecond: 200 });
    const chunks = await chunksOf(await call(event));
    expect(chunks.map((chunk) => chunk.length)).toEqual([20, 20, 20, 20, 15]);
    expect(chunks.join("")).toBe(body);
  });

  it("trickles svc-hub's own answer when the fault has no status", async () => {
    const { call, addFault } = await open();
    await addFault({ path: "/event", trickleBytesPerSecond: 100 });
    const trickled = await call(event);
    expect(trickled.status).toBe(200);
    const chunks: number[][] = [];
    for await (const chunk of trickled.body as ReadableStream<Uint8Array>) chunks.push([...chunk]);
    const gif = [...new Uint8Array(await (await call(event)).arrayBuffer())];
    expect(chunks.flat()).toEqual(gif);
    expect(chunks.map((chunk) => chunk.length)).toEqual(
      Array.from({ length: Math.ceil(gif.length / 10) }, (_, index) => Math.min(10, gif.length - index * 10)),
    );
  });

  it("matches on a header, in any case, and on a value at a body JSON path", async () => {
    const { call, addFault } = await open();
    await addFault({
      method: "POST",
      path: "/event",
      status: 502,
      times: 5,
      matchHeaders: { "X-Test-Case": "checkout" },
      matchJsonPath: { path: "$.items[0].sku", equals: "A1" },
    });
    const post = (headers: Record<string, string>, body: unknown) =>
      call("/event?svc_account=acme&svc_profile=main&tapid=1", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const matching = { items: [{ sku: "A1" }], svc_event: "buy" };
    expect((await post({ "x-test-case": "checkout" }, matching)).status).toBe(502);
    expect((await post({ "x-test-case": "other" }, matching)).status).toBe(200);
    expect((await post({}, matching)).status).toBe(200);
    expect((await post({ "x-test-case": "checkout" }, { items: [{ sku: "B2" }] })).status).toBe(200);
  });

  it("refuses a bad field of issue 43 with 400 1400 naming it", async () => {
    const { call } = await open();
    for (const [fault, field] of [
      [{ path: "/event", status: 500, probability: 2 }, "probability"],
      [{ path: "/event", malformed: "garbled" }, "malformed"],
      [{ path: "/event", status: 500, matchJsonPath: { path: "$.items[*]" } }, "matchJsonPath/path"],
    ] as const) {
      const answer = await call("/admin/faults", { method: "POST", headers: admin, body: JSON.stringify(fault) });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ returnCode: 1400, message: expect.stringContaining(field) });
    }
  });
});
