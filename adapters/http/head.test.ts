import { describe, expect, it } from "bun:test";
import { withHeadAsGet } from "./head.ts";

describe("HEAD (RFC 9110)", () => {
  const seen: string[] = [];
  const app = withHeadAsGet((request) => {
    seen.push(`${request.method} ${new URL(request.url).pathname}`);
    const path = new URL(request.url).pathname;
    if (path === "/own" && request.method === "HEAD") return new Response(null, { status: 200, headers: { "x-own": "yes" } });
    if (request.method !== "GET") return new Response("no route", { status: 404 });
    if (path === "/healthz") return new Response('{"status":"ok"}', { headers: { "content-type": "application/json", "x-version": "1" } });
    return new Response("not found", { status: 404, headers: { "x-why": "unknown" } });
  });

  it("a HEAD no route takes is the GET of the same URL without its body: status and headers", async () => {
    const answer = await app(new Request("http://svc.test/healthz", { method: "HEAD" }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(answer.headers.get("x-version")).toBe("1");
    expect(await answer.text()).toBe("");
    const missing = await app(new Request("http://svc.test/nothing", { method: "HEAD" }));
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-why")).toBe("unknown");
  });

  it("a route of its own for HEAD answers it, and other methods pass untouched", async () => {
    seen.length = 0;
    expect((await app(new Request("http://svc.test/own", { method: "HEAD" }))).headers.get("x-own")).toBe("yes");
    expect(seen).toEqual(["HEAD /own"]);
    expect(await (await app(new Request("http://svc.test/healthz"))).text()).toBe('{"status":"ok"}');
  });
});
