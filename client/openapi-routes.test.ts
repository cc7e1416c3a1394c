/**
 * Issue 43, point 4: the OpenAPI document names every route exactly as the server answers it. A real server's
 * document is walked, every path with every method, placeholders for its parameters; the server's metrics then
 * say which route each request was routed to (the route template it matched, or `unmatched` for the router's
 * 404, whose body is the same as a resource's "not found" and cannot tell them apart).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = "openapi-routes-test-admin-token-0123456789";
const admin = { authorization: `Bearer ${adminToken}` };
const methods = ["get", "head", "post", "put", "patch", "delete", "options"] as const;

interface Operation {
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string }>;
}
type OpenApiPaths = Record<string, Partial<Record<(typeof methods)[number], Operation>>>;

let dataDir = "";
let server: SpawnedServer;
let paths: OpenApiPaths = {};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-hub-openapi-routes-"));
  server = await spawnServer({ root, dataDir, adminToken, env: { SVC_LOG_LEVEL: "warn" } });
  const answer = await fetch(`${server.url}/openapi.json`, { headers: admin });
  expect(answer.status).toBe(200);
  paths = ((await answer.json()) as { paths: OpenApiPaths }).paths;
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The `{name}`s of an OpenAPI path, in order. */
function parametersOf(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
}

/** The route template the router registers for an OpenAPI path: `{name}` as `:name`. */
function templateOf(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}

/** How many requests of `method` the server's metrics counted for `route` (a route template, or `unmatched`). */
function countedRequests(metricsText: string, method: string, route: string): number {
  let total = 0;
  for (const line of metricsText.split("\n")) {
    if (!line.startsWith("svc_hub_http_requests_total{")) continue;
    if (!line.includes(`method="${method}"`) || !line.includes(`route="${route}"`)) continue;
    total += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return total;
}

describe("the OpenAPI document's paths", () => {
  it("are written as the router's templates: no trailing /, parameters as {name} and declared as path parameters", () => {
    const entries = Object.entries(paths);
    expect(entries.length).toBeGreaterThan(40);
    const misnamed = entries.flatMap(([path, operations]) => {
      const problems: string[] = [];
      if (path !== "/" && path.endsWith("/")) problems.push(`${path}: a trailing /`);
      if (/[:*]/.test(path)) problems.push(`${path}: a parameter not in {name} form`);
      for (const method of methods) {
        const operation = operations[method];
        if (!operation) continue;
        const declared = (operation.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
        if (declared.sort().join() !== parametersOf(path).sort().join())
          problems.push(`${method.toUpperCase()} ${path}: path parameters declared ${declared.join(",") || "none"}`);
      }
      return problems;
    });
    expect(misnamed).toEqual([]);
  });

  it("are each routed by the server, method by method, to the route of that very template", async () => {
    const sent: Array<{ method: string; path: string }> = [];
    for (const [path, operations] of Object.entries(paths)) {
      for (const method of methods) {
        if (!operations[method]) continue;
        const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => `placeholder-${name}`);
        // The body is not read: one route is an event stream that never ends.
        const answer = await fetch(`${server.url}${url}`, { method: method.toUpperCase(), headers: admin });
        await answer.body?.cancel();
        sent.push({ method: method.toUpperCase(), path });
      }
    }
    const metrics = await fetch(`${server.url}/metrics`, { headers: admin });
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    const unrouted = sent.filter(({ method, path }) => countedRequests(text, method, templateOf(path)) === 0);
    expect(unrouted.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    // Nothing of the walk fell to the router's 404.
    expect(methods.map((method) => countedRequests(text, method.toUpperCase(), "unmatched"))).toEqual(
      methods.map(() => 0),
    );
  });
});
