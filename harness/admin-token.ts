import type { Target } from "./target.ts";

/** The reason of a skip for want of the admin token. */
export const adminTokenNeeded = "needs the admin token of the target (--admin-token or SVC_ADMIN_TOKEN)";

/** What the one check of the admin token before a run found. */
export type AdminTokenCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** The admin route the token is checked with: POST /admin/wait, which DEC-OPS-04 names (the test clock's routes are a capability apart: capabilities.ts). */
export const adminTokenCheckRoute = "/admin/wait";

/**
 * Asks the target once (POST /admin/wait, DEC-OPS-04) whether it accepts the admin token, so that a wrong
 * `--admin-token` stops the run with one clear message instead of showing up as failures of every scenario
 * that needs it. A target without a token given is not asked.
 */
export async function checkAdminToken(target: Target): Promise<AdminTokenCheck> {
  if (!target.adminToken) return { ok: true };
  const url = `${target.urls.base}${adminTokenCheckRoute}`;
  let response: Response;
  try {
    response = await target.send(
      new Request(url, { method: "POST", headers: { authorization: `Bearer ${target.adminToken}` } }),
    );
  } catch (error) {
    return {
      ok: false,
      reason: `POST ${url} did not answer: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  await response.arrayBuffer().catch(() => undefined);
  // A 504 is the wait's own timeout (DEC-OPS-04 waits for all the work accepted so far, which may be long on a
  // busy target): the token was taken.
  if ((response.status >= 200 && response.status < 300) || response.status === 504) return { ok: true };
  if (response.status === 401 || response.status === 403) {
    return {
      ok: false,
      reason: `the target refused the admin token: POST ${url} answered ${response.status}; check --admin-token, the target file's adminToken or SVC_ADMIN_TOKEN`,
    };
  }
  return {
    ok: false,
    reason: `POST ${url} with the admin token answered ${response.status}, not 2xx (or the wait's 504); scenarios that need the admin routes of DEC-OPS-04 cannot run (leave the admin token out to skip them)`,
  };
}
