import type { Target } from "./target.ts";

/** How long the check waits for an answer: a target that takes longer to answer a health check cannot run the suite. */
const answerWithinMs = 30_000;

/** What the check that the target answers at all found, before a run. */
export type ReachabilityCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Asks each distinct root of the target (management, collection, visitor data) once for GET /healthz
 * (DEC-OPS-01) before the run: any answer, whatever its status, shows the root is reached. A root that does not
 * answer (refused connection, unknown host) stops the run with one line, instead of an error per scenario.
 */
export async function checkReachable(target: Target): Promise<ReachabilityCheck> {
  const roots = [...new Set([target.urls.base, target.urls.collect, target.urls.moments])];
  for (const root of roots) {
    const url = `${root}/healthz`;
    try {
      const response = await target.send(new Request(url, { signal: AbortSignal.timeout(answerWithinMs) }));
      await response.arrayBuffer().catch(() => undefined);
    } catch (error) {
      const which =
        root === target.urls.base ? "--target" : root === target.urls.collect ? "--collect-url" : "--moments-url";
      return {
        ok: false,
        reason: `the target does not answer: GET ${url} failed (${error instanceof Error ? error.message : String(error)}); check ${which} and that the implementation is running`,
      };
    }
  }
  return { ok: true };
}
