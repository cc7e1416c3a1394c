import type { Logger } from "../../core/ports/logger.port.ts";
import { loggedPathOf, reasonHeader } from "./error-mapping.ts";

/**
 * One structured line per request: method, path (never the query string, which can hold a utk; a moments
 * lookup's visitor as `…`, loggedPathOf), status and duration in milliseconds; a refusal whose body is the
 * contract's one wording for every refusal also says why (`reason`, the answer's reason header).
 */
export function withRequestLog(handle: (request: Request) => Promise<Response> | Response, logger: Logger) {
  return async (request: Request): Promise<Response> => {
    const started = performance.now();
    const pathname = loggedPathOf(request.url);
    try {
      const response = await handle(request);
      const reason = response.status >= 400 ? response.headers.get(reasonHeader) : null;
      logger.info("request", {
        method: request.method,
        path: pathname,
        status: response.status,
        ms: round(performance.now() - started),
        ...(reason === null ? {} : { reason }),
      });
      return response;
    } catch (error) {
      logger.error("request failed", {
        method: request.method,
        path: pathname,
        status: 500,
        ms: round(performance.now() - started),
        error: String(error),
      });
      throw error;
    }
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
