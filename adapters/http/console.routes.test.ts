import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import {
  type InProcessService,
  openInProcessTarget,
} from "../../conformance/implementations/svc-hub/in-process-target.ts";
import { inProcessBase } from "../../harness/target.ts";
import { consoleAssets } from "../console/console-assets.ts";

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

  it("the API reference page loads RapiDoc from svc-hub; its scripts still come from svc-hub only", async () => {
    const answer = await handle("/console/api");
    expect(answer.status).toBe(200);
    expect(policyOf(answer).get("script-src")).toBe("'self'");
    expect(policyOf(answer).get("connect-src")).toBe("'self'");
    const page = await answer.text();
    expect(page).toMatch(/src="\/console\/assets\/rapidoc\.js\?v=\w+"/);
    const renderer = await handle("/console/assets/rapidoc.js");
    expect(renderer.status).toBe(200);
    expect(renderer.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    // RapiDoc's bundle names Google's font host, used only when fonts are loaded: the page turns that off.
    expect(await renderer.text()).toContain('"false"!==this.loadFonts');
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

  it("[issue 43] /favicon.ico is the console's icon, a small SVG a browser keeps a day; every page links it", async () => {
    const icon = await handle("/favicon.ico");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(icon.headers.get("cache-control")).toBe("public, max-age=86400");
    const body = await icon.text();
    expect(body).toStartWith("<svg");
    expect(body.length).toBeLessThan(1024);
    for (const path of ["/console/events", "/console/api"]) {
      const page = await (await handle(path)).text();
      expect(page).toMatch(/<link rel="icon" type="image\/svg\+xml" href="\/console\/assets\/favicon\.svg\?v=\w+" \/>/);
    }
    const versioned = await handle(`/console/assets/favicon.svg?v=${(await consoleAssets()).version}`);
    expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await versioned.text()).toBe(body);
  });

  it("an unknown file is 404", async () => {
    expect((await handle("/console/assets/nope.js")).status).toBe(404);
  });

  it("the OpenAPI document does not list the console's pages", async () => {
    const document = (await (await handle("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path === "/" || path.startsWith("/console"))).toEqual([]);
  });
});

describe("the API reference's script, compressed and cacheable (issue 41)", () => {
  const versionOfPage = async () => {
    const page = await (await handle("/console/api")).text();
    const version = /src="\/console\/assets\/rapidoc\.js\?v=(\w+)"/.exec(page)?.[1];
    if (version === undefined) throw new Error("the API reference page names no versioned rapidoc.js");
    return version;
  };
  const bytesOf = async (answer: Response) => new Uint8Array(await answer.arrayBuffer());

  it("is sent as brotli to a browser that accepts it, as gzip to one that accepts only gzip, else as it is", async () => {
    const plain = await handle("/console/assets/rapidoc.js");
    expect(plain.headers.get("content-encoding")).toBeNull();
    const original = await bytesOf(plain);
    // RapiDoc's bundle, decompressed from the forms the build wrote, for a client that accepts no encoding.
    expect(original.byteLength).toBeGreaterThan(500_000);
    expect(new TextDecoder().decode(original.subarray(0, 19))).toBe("/*! RapiDoc 9.3.8 |");

    const br = await handle("/console/assets/rapidoc.js", {
      headers: { "accept-encoding": "gzip, deflate, br, zstd" },
    });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toBe("accept-encoding");
    expect(br.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const brBody = await bytesOf(br);
    expect(brBody.byteLength).toBeLessThan(original.byteLength / 3);
    expect(new Uint8Array(brotliDecompressSync(brBody))).toEqual(original);

    const gzip = await handle("/console/assets/rapidoc.js", { headers: { "accept-encoding": "gzip, deflate" } });
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    const gzipBody = await bytesOf(gzip);
    expect(gzipBody.byteLength).toBeLessThan(original.byteLength / 3);
    expect(new Uint8Array(gunzipSync(gzipBody))).toEqual(original);

    const refused = await handle("/console/assets/rapidoc.js", { headers: { "accept-encoding": "br;q=0, gzip" } });
    expect(refused.headers.get("content-encoding")).toBe("gzip");
    const identity = await handle("/console/assets/rapidoc.js", { headers: { "accept-encoding": "identity" } });
    expect(identity.headers.get("content-encoding")).toBeNull();
  });

  it("at the page's versioned address it is cached for a year; elsewhere it is revalidated", async () => {
    const version = await versionOfPage();
    const versioned = await handle(`/console/assets/rapidoc.js?v=${version}`);
    expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    for (const path of ["/console/assets/rapidoc.js", "/console/assets/rapidoc.js?v=not-this-version"]) {
      expect((await handle(path)).headers.get("cache-control")).toBe("no-cache");
    }
    // The console's own files get the same treatment, and the pages themselves are always revalidated.
    expect((await handle(`/console/assets/console.js?v=${version}`)).headers.get("cache-control")).toContain(
      "immutable",
    );
    expect((await handle("/console/api")).headers.get("cache-control")).toBe("no-cache");
  });

  it("each encoding has its own ETag, and a browser that has that one gets 304", async () => {
    const etags = new Set<string>();
    for (const encoding of ["br", "gzip", "identity"]) {
      const answer = await handle("/console/assets/rapidoc.js", { headers: { "accept-encoding": encoding } });
      const etag = answer.headers.get("etag") ?? "";
      expect(etag).toMatch(/^"[\w-]+"$/);
      etags.add(etag);
      const again = await handle("/console/assets/rapidoc.js", {
        headers: { "accept-encoding": encoding, "if-none-match": etag },
      });
      expect(again.status).toBe(304);
      expect(again.headers.get("vary")).toBe("accept-encoding");
    }
    expect(etags.size).toBe(3);
  });

  it("the console's own script is compressed too", async () => {
    const answer = await handle("/console/assets/console.js", { headers: { "accept-encoding": "gzip" } });
    expect(answer.headers.get("content-encoding")).toBe("gzip");
    const plain = await bytesOf(await handle("/console/assets/console.js"));
    expect(new Uint8Array(gunzipSync(await bytesOf(answer)))).toEqual(plain);
  });
});
