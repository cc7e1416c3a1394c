import { Elysia, t } from "elysia";
import { managementError } from "../../core/errors/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { failWith } from "./error-mapping.ts";
import { AnswerInteger, ErrorBody } from "./openapi-parts.ts";

/** DEC-OPS-01: `/healthz` says the process is up; `/readyz` says the store answers. */
export function healthRoutes(deps: AppDeps) {
  const startedAt = Date.now();
  return new Elysia({ name: "health" })
    .get(
      "/healthz",
      () => ({ status: "ok" as const, version: deps.version, nodeId: deps.nodeId, uptimeMs: Date.now() - startedAt }),
      {
        detail: { tags: ["operations"], summary: "The process is up" },
        response: {
          200: t.Object({
            status: t.Literal("ok"),
            version: t.String(),
            nodeId: t.String(),
            uptimeMs: AnswerInteger(),
          }),
        },
      },
    )
    .get(
      "/readyz",
      async () => {
        try {
          return { status: "ready" as const, store: await deps.storeReady() };
        } catch (error) {
          deps.logger.warn("readiness check failed", { error: error instanceof Error ? error.message : String(error) });
          failWith(managementError("storageUnavailable"));
        }
      },
      {
        detail: { tags: ["operations"], summary: "The store is reachable" },
        response: { 200: t.Object({ status: t.Literal("ready"), store: t.String() }), 503: ErrorBody },
      },
    );
}
