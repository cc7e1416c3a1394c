import type { BackgroundWorker } from "../ports/background.port.ts";
import type { Clock } from "../ports/clock.port.ts";
import type { LockoutStore, SessionStore } from "../ports/sessions.store.ts";
import type { SessionPolicy } from "./session.rules.ts";

/**
 * DEC-SES-02: removes expired sessions from the store (an expired session is refused whether or not it was
 * removed; this keeps the table small). DEC-SES-01, DEC-AUT-01: removes the lockout records that no longer
 * matter at the same virtual now the login checks them against (anyone can make one per name tried). Looks
 * at most once a minute of virtual time; at once when that time went back (a reset, POST /admin/reset).
 */
export function sessionJanitor(deps: {
  sessions: SessionStore;
  lockouts: LockoutStore;
  clock: Clock;
  policy: SessionPolicy;
}): BackgroundWorker {
  let lastSweep = Number.NEGATIVE_INFINITY;
  return {
    name: "session-janitor",
    async runDue(now) {
      if (now >= lastSweep && now - lastSweep < 60_000) return 0;
      lastSweep = now;
      const sessions = await deps.sessions.deleteExpired(now - deps.policy.idleMs, now - deps.policy.absoluteMs);
      return sessions + (await deps.lockouts.deleteExpired(now));
    },
    async nextDueAt() {
      return null;
    },
  };
}
