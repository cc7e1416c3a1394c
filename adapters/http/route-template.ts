import { unmatchedRoute } from "../runtime/service-metrics.ts";

/** The route each request matched, as registered (`/v2/accounts/:account/…`), noted by the app once routed. */
const templates = new WeakMap<Request, string>();

/** Called by the app (its transform hook, which runs once a route is found). */
export function noteRouteTemplate(request: Request, route: string): void {
  templates.set(request, route);
}

/**
 * The route template of an answered request, for the metrics' route label: never the raw path, which holds
 * visitor ids and file names (unbounded, and personal data). A request no route matched is `unmatched`.
 */
export function routeTemplateOf(request: Request): string {
  return templates.get(request) ?? unmatchedRoute;
}

/** The route the app routed `request` to; undefined when it did not route it (no route matched, or it never got there). */
export function notedRouteOf(request: Request): string | undefined {
  return templates.get(request);
}

/** The route the router would choose for a method and a path as sent; null when none matches. */
export type RouteFinder = (method: string, path: string) => string | null;

/**
 * A finder over the app's routes, for a request the router never saw (a fault answered it first): the route
 * whose template matches, preferring at each segment, as the router does, a literal one to a `:name`, and a
 * `:name` to a `*`. One trailing `/` is forgiven, as the router forgives it.
 */
export function routeFinderOf(routes: ReadonlyArray<{ readonly method: string; readonly path: string }>): RouteFinder {
  const candidates = routes.map((route) => {
    const path = route.path.length > 1 ? route.path.replace(/\/$/, "") : route.path;
    const segments = path.split("/");
    const source = segments
      .map((segment) => {
        if (segment === "*") return ".*";
        if (segment.startsWith(":")) return "[^/]+";
        return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      })
      .join("/");
    const rank = segments.map((segment) => (segment === "*" ? 2 : segment.startsWith(":") ? 1 : 0));
    return { method: route.method, template: route.path, pattern: new RegExp(`^${source}/?$`), rank };
  });
  return (method, path) => {
    let best: (typeof candidates)[number] | null = null;
    for (const candidate of candidates) {
      const takes =
        candidate.method === method || candidate.method === "ALL" || (method === "HEAD" && candidate.method === "GET");
      if (!takes || !candidate.pattern.test(path)) continue;
      if (best === null || rankBefore(candidate.rank, best.rank)) best = candidate;
    }
    return best?.template ?? null;
  };
}

/**
 * Whether a route of segments ranked `a` wins over one ranked `b`: the first segment that differs decides; past
 * the shorter one's end (`/datalayers` against `/datalayers/*`, both matching `/datalayers/`), the shorter.
 */
function rankBefore(a: readonly number[], b: readonly number[]): boolean {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1)
    if (a[index] !== b[index]) return (a[index] as number) < (b[index] as number);
  return a.length < b.length;
}

const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The method label: any other method (a made-up one) is `OTHER`, so a caller cannot add label values. */
export function methodLabelOf(method: string): string {
  return knownMethods.has(method) ? method : "OTHER";
}
