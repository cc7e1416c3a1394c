/**
 * The route a request matched, as the request journal names it: for a request a fault answered before the
 * router saw it, routeFinderOf must name the route the router would have chosen.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { inProcessBase } from "../../harness/target.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service } from "../server/service.ts";
import { notedRouteOf, routeFinderOf } from "./route-template.ts";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A path of each route, its `:name` segments and `*` filled in, with and without a trailing `/`. */
function pathsOf(template: string): string[] {
  const filled = template
    .split("/")
    .map((segment, index) => (segment === "*" ? "a/b" : segment.startsWith(":") ? `v${index}` : segment))
    .join("/");
  return filled === "/" ? [filled] : [filled, filled.endsWith("/") ? filled.slice(0, -1) : `${filled}/`];
}

describe("the route a request matched", () => {
  it("routeFinderOf chooses the route the router chooses, for every route's paths and for paths of none", async () => {
    const adminToken = "route-template-admin-token";
    const admin = { authorization: `Bearer ${adminToken}` };
    const service: Service = await openDemoService({ timing: "instant", adminToken });
    cleanups.push(() => service.close());
    const routes = service.app.routes.filter((route) => !route.path.startsWith("/admin"));
    const find = routeFinderOf(service.app.routes);
    const requests = [
      ...routes.flatMap((route) =>
        pathsOf(route.path).map((path) => [route.method === "ALL" ? "PATCH" : route.method, path] as const),
      ),
      ["GET", "/nope"],
      ["PATCH", "/v1/login"],
      ["GET", "/personalization/accounts/acme/profiles/main/engines/e1/visitors//ann@example.com"],
      ["GET", "/v1/dle/accounts/acme/profiles/main/datalayers/a/b/c"],
      ["GET", "/v1/omnichannel/accounts/acme/profiles/main/files/count"],
      ["GET", "/v1/omnichannel/accounts/acme/profiles/main/files/f.csv"],
    ] as const;
    let compared = 0;
    for (const [method, path] of requests) {
      // With the admin token, so that /metrics is routed rather than refused before the router.
      const request = new Request(`${inProcessBase}${path}`, { method, headers: admin });
      await service.app.handle(request);
      expect(`${method} ${path} -> ${find(method, path)}`).toBe(
        `${method} ${path} -> ${notedRouteOf(request) ?? null}`,
      );
      compared += 1;
    }
    expect(compared).toBeGreaterThan(60);
  });
});
