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

const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The method label: any other method (a made-up one) is `OTHER`, so a caller cannot add label values. */
export function methodLabelOf(method: string): string {
  return knownMethods.has(method) ? method : "OTHER";
}
