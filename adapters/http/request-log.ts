import type { Logger } from "../../core/ports/index.ts";
import type { ServiceMetrics } from "../runtime/service-metrics.ts";
import { loggedPathOf, reasonHeader } from "./error-mapping.ts";
import { methodLabelOf, routeTemplateOf } from "./route-template.ts";

/**
 * One structured line per request: method, path (never the query string, which can hold a utk; a moments
 * lookup's visitor as `…`, loggedPathOf), status and duration in milliseconds; a refusal whose body is the
 * contract's one wording for every refusal also says why (`reason`, the answer's reason header). With
 * `metrics`, each request is also counted by its route template and status, and its duration observed.
 */
export function withRequestLog(
  handle: (request: Request) => Promise<Response> | Response,
  logger: Logger,
  metrics?: ServiceMetrics,
) {
  return async (request: Request): Promise<Response> => {
    const started = performance.now();
    const pathname = loggedPathOf(request.url);
    try {
      const response = await handle(request);
      const ms = performance.now() - started;
      metrics?.observeRequest(methodLabelOf(request.method), routeTemplateOf(request), response.status, ms);
      const reason = response.status >= 400 ? response.headers.get(reasonHeader) : null;
      logger.info("request", {
        method: request.method,
        path: pathname,
        status: response.status,
        ms: round(ms),
        ...(reason === null ? {} : { reason }),
      });
      return response;
    } catch (error) {
      const ms = performance.now() - started;
      metrics?.observeRequest(methodLabelOf(request.method), routeTemplateOf(request), 500, ms);
      logger.error("request failed", {
        method: request.method,
        path: pathname,
        status: 500,
        ms: round(ms),
        error: String(error),
      });
      throw error;
    }
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
