/**
 * svc-hub's test controls (issue 43) with the admin token: the virtual clock, the wait for background work, the
 * reset. Each throws SvcHubClientError when svc-hub refuses the call.
 *
 *   await advanceClock(hub, "31m");
 *   await waitForWork(hub);
 */
import { type AdminClient, answered } from "./admin-call.ts";
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

/** The virtual clock (GET /admin/clock). */
export async function readClock(hub: AdminClient): Promise<ClockView> {
  return answered("GET /admin/clock", await hub.admin.GET("/admin/clock"));
}

/** Sets the virtual clock (PUT /admin/clock) to a time: ISO 8601, epoch ms or a Date; never back. */
export async function setClock(hub: AdminClient, to: string | number | Date): Promise<ClockView> {
  const now = to instanceof Date ? to.toISOString() : to;
  return answered("PUT /admin/clock", await hub.admin.PUT("/admin/clock", { body: { now } }));
}

/** Moves the virtual clock forward (POST /admin/clock/advance) by milliseconds or a duration such as "90s", "3d". */
export async function advanceClock(hub: AdminClient, by: string | number): Promise<ClockView> {
  return answered("POST /admin/clock/advance", await hub.admin.POST("/admin/clock/advance", { body: { by } }));
}

/** Returns once the background work accepted so far is done (POST /admin/wait). */
export async function waitForWork(hub: AdminClient, options: WaitOptions = {}): Promise<WaitReport> {
  return answered("POST /admin/wait", await hub.admin.POST("/admin/wait", { body: options }));
}

/** Puts svc-hub back where a fresh start with the same configuration would be (POST /admin/reset). */
export async function resetHub(hub: AdminClient): Promise<ResetReport> {
  return answered("POST /admin/reset", await hub.admin.POST("/admin/reset", { body: {} }));
}
