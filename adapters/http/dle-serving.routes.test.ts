/** Serving published data layers (DEC-DLE-07) in-process: the CORS preflight of a cross-origin read. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { inProcessBase } from "../../harness/target.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service } from "../server/service.ts";

let service: Service;
beforeAll(async () => {
  service = await openDemoService();
});
afterAll(() => service.close());

function preflight(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return service.app.handle(
    new Request(`${inProcessBase}${path}`, {
      method: "OPTIONS",
      headers: { origin: "https://shop.example", "access-control-request-method": "GET", ...headers },
    }),
  );
}

describe("served data layers: CORS preflight (DEC-DLE-07)", () => {
  test("is 204 allowing any origin to GET, without credentials, for a while", async () => {
    const answer = await preflight("/dle/acme/main/homepage.json");
    expect(answer.status).toBe(204);
    expect(await answer.text()).toBe("");
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    expect(answer.headers.get("access-control-allow-methods")).toBe("GET, HEAD, OPTIONS");
    expect(answer.headers.get("access-control-allow-credentials")).toBeNull();
    expect(Number(answer.headers.get("access-control-max-age"))).toBeGreaterThan(0);
  });

  test("allows the request headers the browser asks for, and says the answer varies with them", async () => {
    const answer = await preflight("/dle/acme/main/homepage.js", {
      "access-control-request-headers": "if-none-match, x-requested-with",
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-headers")).toBe("if-none-match, x-requested-with");
    expect(answer.headers.get("vary")).toContain("Access-Control-Request-Headers");
  });

  test("is the same whether or not the data layer is published, so it tells nothing about it", async () => {
    const published = await preflight("/dle/acme/main/homepage.json");
    const unknown = await preflight("/dle/acme/main/never-uploaded.json");
    expect(unknown.status).toBe(published.status);
    expect(Object.fromEntries(unknown.headers)).toEqual(Object.fromEntries(published.headers));
  });
});
