import { adminTokenNeeded, probeAdminRoute, type SvcHubAdminProbe } from "./svc-hub-admin.ts";
import type { Target } from "./target.ts";

/**
 * svc-hub's virtual clock routes: `GET /admin/clock` answers `{now, nowMs, offsetMs, timing}`, `PUT
 * /admin/clock` takes `{now}`, `POST /admin/clock/advance` takes `{by: "90s"}`. DEC-OPS-02 asks for a virtual
 * clock the admin API can read, set and advance, but names no route, so these are svc-hub's own. Scenarios that
 * move or read the clock declare the need "svc-hub-clock".
 */
export const svcHubClockRoute = "/admin/clock";

/** Whether the target has svc-hub's clock routes, and if not, why scenarios needing them are skipped. */
export type SvcHubClockProbe = SvcHubAdminProbe;

const needsIt =
  "needs svc-hub's virtual clock routes (GET and PUT /admin/clock, POST /admin/clock/advance; DEC-OPS-02 asks for a virtual clock but names no route)";

/**
 * Asks the target once, before the run, for its clock (GET /admin/clock with the admin token): a 200 JSON
 * answer with a numeric nowMs means the routes are there. Anything else makes every scenario that needs them
 * a skip with the reason, instead of a failure.
 */
export async function probeSvcHubClock(target: Target): Promise<SvcHubClockProbe> {
  const { adminToken } = target;
  if (!adminToken) return { available: false, reason: adminTokenNeeded };
  return probeAdminRoute({ ...target, adminToken }, svcHubClockRoute, needsIt, (body) => {
    let nowMs: unknown;
    try {
      nowMs = (JSON.parse(body) as { nowMs?: unknown }).nowMs;
    } catch {
      nowMs = undefined;
    }
    return typeof nowMs === "number" && Number.isFinite(nowMs) ? null : "answered 200 without a numeric nowMs";
  });
}
