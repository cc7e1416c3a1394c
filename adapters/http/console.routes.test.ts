import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import {
  type InProcessService,
  openInProcessTarget,
} from "../../conformance/implementations/svc-hub/in-process-target.ts";
import { inProcessBase } from "../../harness/target.ts";

let opened: InProcessService;

beforeAll(async () => {
  opened = await openInProcessTarget();
});
afterAll(() => opened.close());

function handle(path: string, init?: RequestInit): Promise<Response> {
  return opened.service.app.handle(new Request(`${inProcessBase}${path}`, init));
}

function policyOf(answer: Response): Map<string, string> {
  const policy = answer.headers.get("content-security-policy") ?? "";
  return new Map(
    policy.split(";").map((directive) => {
      const [name = "", ...values] = directive.trim().split(/\s+/);
      return [name, values.join(" ")] as const;
    }),
  );
}

describe("the console's pages and files (issue 32)", () => {
  it("/ sends the browser to the console", async () => {
    const answer = await handle("/");
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe("/console/");
  });

  it("every path under /console answers the console's page, which holds no data and needs no token", async () => {
    for (const path of ["/console", "/console/", "/console/events", "/console/events/12", "/console/data?x=1"]) {
      const answer = await handle(path);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const page = await answer.text();
      expect(page).toContain('<div id="console">');
      expect(page).toMatch(/<script type="module" src="\/console\/assets\/console\.js\?v=\w+"><\/script>/);
    }
  });

  it("the page allows scripts and styles from svc-hub only: no inline script, no other host, no framing", async () => {
    const answer = await handle("/console/events");
    const policy = policyOf(answer);
    expect(policy.get("default-src")).toBe("'none'");
    expect(policy.get("script-src")).toBe("'self'");
    expect(policy.get("style-src")).toBe("'self'");
    expect(policy.get("connect-src")).toBe("'self'");
    expect(policy.get("frame-ancestors")).toBe("'none'");
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    expect(answer.headers.get("referrer-policy")).toBe("no-referrer");
    // Nothing inline for the policy to allow.
    const page = await answer.text();
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).not.toMatch(/\sstyle=|\son\w+=/);
  });

  it("the API reference page loads Scalar from svc-hub; its scripts still come from svc-hub only", async () => {
    const answer = await handle("/console/api");
    expect(answer.status).toBe(200);
    expect(policyOf(answer).get("script-src")).toBe("'self'");
    expect(policyOf(answer).get("connect-src")).toBe("'self'");
    const page = await answer.text();
    expect(page).toMatch(/src="\/console\/assets\/scalar\.js\?v=\w+"/);
    const scalar = await handle("/console/assets/scalar.js");
    expect(scalar.status).toBe(200);
    expect(scalar.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  });

  it("serves the bundled script and style sheet with an ETag, and 304 when the browser has them", async () => {
    for (const [file, type] of [
      ["console.js", "text/javascript; charset=utf-8"],
      ["api-reference.js", "text/javascript; charset=utf-8"],
      ["console.css", "text/css; charset=utf-8"],
    ] as const) {
      const answer = await handle(`/console/assets/${file}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toBe(type);
      expect((await answer.arrayBuffer()).byteLength).toBeGreaterThan(100);
      const etag = answer.headers.get("etag");
      expect(etag).toMatch(/^"\w+"$/);
      const again = await handle(`/console/assets/${file}`, { headers: { "if-none-match": etag ?? "" } });
      expect(again.status).toBe(304);
    }
  });

  it("the bundle names no other host to load from", async () => {
    const script = await (await handle("/console/assets/console.js")).text();
    expect(script).not.toMatch(/https?:\/\/(?!www\.w3\.org)[\w.-]+\//);
  });

  it("an unknown file is 404", async () => {
    expect((await handle("/console/assets/nope.js")).status).toBe(404);
  });

  it("the OpenAPI document does not list the console's pages", async () => {
    const document = (await (await handle("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path === "/" || path.startsWith("/console"))).toEqual([]);
  });
});
