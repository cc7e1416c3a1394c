import type { Target } from "./target.ts";

/** The reason of a skip for want of the admin token. */
export const adminTokenNeeded = "needs the admin token of the target (--admin-token or SVC_ADMIN_TOKEN)";

/**
 * svc-hub's own admin routes, beyond those the interface's decisions name (DEC-OPS-04: `/admin/wait`, the file
 * upload and the revision publish): the users and API keys, the stored events and the collection counters.
 * Scenarios that read or make data through them declare the need "svc-hub-admin". (svc-hub's virtual clock
 * routes are another need of their own: svc-hub-clock.ts.)
 */
export const svcHubAdminRoutes = ["/admin/users", "/admin/events?limit=1", "/admin/collect/stats"] as const;

/** Whether the target has svc-hub's own admin routes, and if not, why scenarios needing them are skipped. */
export type SvcHubAdminProbe = { readonly available: true } | { readonly available: false; readonly reason: string };

const needsThem =
  "needs svc-hub's own admin routes (/admin/users, /admin/events, /admin/collect/stats; not part of the specified admin API)";

/**
 * GETs one admin route with the token, before the run: available when it answers 200 and `check` (given the
 * body) finds nothing wrong; otherwise the reason a scenario needing it is skipped, starting with `needs`.
 */
export async function probeAdminRoute(
  target: Target & { readonly adminToken: string },
  route: string,
  needs: string,
  check: (body: string) => string | null = () => null,
): Promise<SvcHubAdminProbe> {
  const url = `${target.urls.base}${route}`;
  let status: number;
  let body: string;
  try {
    const response = await target.send(new Request(url, { headers: { authorization: `Bearer ${target.adminToken}` } }));
    status = response.status;
    body = await response.text().catch(() => "");
  } catch (error) {
    return {
      available: false,
      reason: `${needs}; GET ${url} did not answer before the run: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const problem = status !== 200 ? `answered ${status}` : check(body);
  return problem === null
    ? { available: true }
    : { available: false, reason: `${needs}, which the target does not have: GET ${route} ${problem} before the run` };
}

/**
 * Asks the target once, before the run, for each of svc-hub's own admin routes with the admin token: all of
 * them answering 200 means they are there. Anything else (404 from an implementation with only the specified
 * admin API, say) makes every scenario that needs them a skip with the reason, instead of a failure.
 */
export async function probeSvcHubAdmin(target: Target): Promise<SvcHubAdminProbe> {
  const { adminToken } = target;
  if (!adminToken) return { available: false, reason: adminTokenNeeded };
  for (const route of svcHubAdminRoutes) {
    const probe = await probeAdminRoute({ ...target, adminToken }, route, needsThem);
    if (!probe.available) return probe;
  }
  return { available: true };
}
