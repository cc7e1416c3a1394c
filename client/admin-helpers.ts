import type { SvcHubClient } from "./index.ts";
import { SvcHubClientError } from "./index.ts";
import type { paths } from "./openapi.types.ts";

/** The virtual clock as svc-hub shows it: `now` (ISO 8601), `nowMs`, `offsetMs`, `timing`. */
export type ClockView = paths["/admin/clock"]["get"]["responses"][200]["content"]["application/json"];
/** The options of POST /admin/wait: `timeoutMs`, `scheduled`, `advanceClock`. */
export type WaitOptions = paths["/admin/wait"]["post"]["requestBody"] extends
  | { content: { "application/json": infer Body } }
  | undefined
  ? Body
  : never;
export type WaitReport = paths["/admin/wait"]["post"]["responses"][200]["content"]["application/json"];
/** What POST /admin/reset erased and put back. */
export type ResetReport = paths["/admin/reset"]["post"]["responses"][200]["content"]["application/json"];

/** svc-hub's test controls with the admin token: the virtual clock, the wait for background work, the reset. */
export interface SvcHubAdminHelpers {
  readonly clock: {
    /** GET /admin/clock */
    read(): Promise<ClockView>;
    /** PUT /admin/clock: to a time (ISO 8601 or epoch ms), never back. */
    set(to: string | number | Date): Promise<ClockView>;
    /** POST /admin/clock/advance: by milliseconds or a duration such as "90s", "3d". */
    advance(by: string | number): Promise<ClockView>;
  };
  /** POST /admin/wait: once the background work accepted so far is done. */
  wait(options?: WaitOptions): Promise<WaitReport>;
  /** POST /admin/reset: back to a fresh start with the same configuration. */
  reset(): Promise<ResetReport>;
}

/** The clock, wait and reset helpers of a client made with an admin token; a refused call throws SvcHubClientError. */
export function adminHelpersOf(hub: Pick<SvcHubClient, "admin">): SvcHubAdminHelpers {
  const answered = <T>(call: string, result: { data?: T; error?: unknown; response: Response }): T => {
    if (result.data === undefined) throw new SvcHubClientError(call, result.response.status, result.error);
    return result.data;
  };
  return {
    clock: {
      read: async () => answered("GET /admin/clock", await hub.admin.GET("/admin/clock")),
      set: async (to) =>
        answered(
          "PUT /admin/clock",
          await hub.admin.PUT("/admin/clock", { body: { now: to instanceof Date ? to.toISOString() : to } }),
        ),
      advance: async (by) =>
        answered("POST /admin/clock/advance", await hub.admin.POST("/admin/clock/advance", { body: { by } })),
    },
    wait: async (options = {}) => answered("POST /admin/wait", await hub.admin.POST("/admin/wait", { body: options })),
    reset: async () => answered("POST /admin/reset", await hub.admin.POST("/admin/reset", { body: {} })),
  };
}
