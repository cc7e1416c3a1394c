import { Elysia } from "elysia";
import type { AppDeps } from "./app-deps.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { answersOf } from "./openapi-parts.ts";

/**
 * GET /metrics (issue 33): the service's metrics in Prometheus' text format 0.0.4, for the holder of the admin
 * token only (checked by the app before routing, as for /admin): the counters tell how much traffic each
 * tenant's site sends.
 */
export function metricsRoutes(deps: AppDeps) {
  return new Elysia({ name: "metrics" }).get(
    "/metrics",
    async () => new Response(await deps.metrics.render(), { headers: { "content-type": deps.metrics.contentType } }),
    {
      detail: {
        tags: ["operations"],
        summary: "This process's metrics in Prometheus' text format",
        security: openApiSecurity.admin,
        responses: answersOf({
          200: {
            description: "Prometheus' text exposition format, version 0.0.4 (`text/plain; version=0.0.4`)",
            content: { "text/plain": { type: "string" } },
          },
          401: "Without the admin token",
        }),
      },
    },
  );
}
