import type { Target } from "./target.ts";

/** What the one check of the admin token before a run found. */
export type AdminTokenCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Asks the target once (GET /admin/clock, DEC-OPS-02) whether it accepts the admin token, so that a wrong
 * `--admin-token` stops the run with one clear message instead of showing up as failures of every scenario
 * that needs it. A target without a token given is not asked.
 */
export async function checkAdminToken(target: Target): Promise<AdminTokenCheck> {
  if (!target.adminToken) return { ok: true };
  const url = `${target.urls.base}/admin/clock`;
  let response: Response;
  try {
    response = await target.send(new Request(url, { headers: { authorization: `Bearer ${target.adminToken}` } }));
  } catch (error) {
    return { ok: false, reason: `GET ${url} did not answer: ${error instanceof Error ? error.message : String(error)}` };
  }
  await response.arrayBuffer().catch(() => undefined);
  if (response.status === 200) return { ok: true };
  if (response.status === 401 || response.status === 403) {
    return { ok: false, reason: `the target refused the admin token: GET ${url} answered ${response.status}; check --admin-token, the target file's adminToken or SVC_ADMIN_TOKEN` };
  }
  return { ok: false, reason: `GET ${url} with the admin token answered ${response.status}, not 200; scenarios that need the admin API cannot run (leave the admin token out to skip them)` };
}
