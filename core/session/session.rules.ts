import type { Grant } from "../config/config.model.ts";
import type { IdSource } from "../ports/ids.port.ts";

/** DEC-SES-02: how long a session lives. */
export interface SessionPolicy {
  readonly idleMs: number;
  readonly absoluteMs: number;
}

export function sessionPolicyFromLimits(limits: {
  readonly sessionIdleMinutes: number;
  readonly sessionAbsoluteHours: number;
}): SessionPolicy {
  return { idleMs: limits.sessionIdleMinutes * 60_000, absoluteMs: limits.sessionAbsoluteHours * 3_600_000 };
}

export interface SessionTimes {
  readonly createdAt: number;
  readonly lastSeenAt: number;
}

/** SES-12, DEC-SES-02: a session ends after the idle timeout without use, or at the absolute limit. */
export function isSessionLive(session: SessionTimes, now: number, policy: SessionPolicy): boolean {
  return now < session.lastSeenAt + policy.idleMs && now < session.createdAt + policy.absoluteMs;
}

/**
 * Whether a use at `now` must be written back as the new last-seen time: whenever time has moved, so that the
 * idle timeout counts from the true last use (a coarser write would end sessions early).
 */
export function shouldTouchSession(session: SessionTimes, now: number): boolean {
  return now > session.lastSeenAt;
}

/**
 * Whether a bearer token outlived every password reset and disabling of its user: it did when it was issued in
 * the user's current generation of tokens (UserRecord.tokenGeneration), which each of them replaces by a new
 * random one. Exact whatever the timing: a token minted in the same millisecond as a reset, or between two
 * resets of one second, on a clock standing still or behind another node's, is of the generation it was minted
 * in and no later one.
 */
export function isTokenOfCurrentGeneration(tokenGeneration: string | null, userGeneration: string | null): boolean {
  return tokenGeneration === userGeneration;
}

/** The name of a new generation of a user's tokens: 128 random bits, so that no two generations share one. */
export function newTokenGeneration(ids: Pick<IdSource, "randomHex">): string {
  return ids.randomHex(16);
}

/** AUT-03, DEC-GEN-03: does a principal's grant list cover this account and profile? */
export function grantCovers(grants: readonly Grant[], account: string, profile: string): boolean {
  return grants.some(
    (grant) => grant.account === account && (grant.profiles === "*" || grant.profiles.includes(profile)),
  );
}

/**
 * DEC-SES-04: grants as one per account, in the order first named: `*` where any grant of the account says
 * `*`, else its profiles once each. What they allow is the same as the list given.
 */
export function mergeGrants(grants: readonly Grant[]): Grant[] {
  const byAccount = new Map<string, "*" | string[]>();
  for (const grant of grants) {
    const known = byAccount.get(grant.account);
    if (known === "*" || grant.profiles === "*") byAccount.set(grant.account, "*");
    else byAccount.set(grant.account, [...new Set([...(known ?? []), ...grant.profiles])]);
  }
  return [...byAccount].map(([account, profiles]) => ({ account, profiles }));
}

/** DEC-GEN-03: does the principal hold a grant on any profile of this account? */
export function grantCoversAccount(grants: readonly Grant[], account: string): boolean {
  return grants.some((grant) => grant.account === account && (grant.profiles === "*" || grant.profiles.length > 0));
}

/** The outcome of checking a principal against an account/profile, which each API maps to its own catalogue entry (DEC-GEN-04). */
export type TenantAccess = "granted" | "unknown-account" | "unknown-profile" | "no-grant";

/**
 * DEC-GEN-03, DEC-GEN-04, AUT-03: existence is decided first (as the spec's codes require), then the grant.
 */
export function decideTenantAccess(input: {
  readonly accountExists: boolean;
  readonly profileExists: boolean;
  readonly grants: readonly Grant[];
  readonly account: string;
  readonly profile: string;
}): TenantAccess {
  if (!input.accountExists) return "unknown-account";
  if (!input.profileExists) return "unknown-profile";
  return grantCovers(input.grants, input.account, input.profile) ? "granted" : "no-grant";
}

/** DEC-SES-04: a user may log in only when enabled and holding at least one grant. */
export function mayLogIn(user: { readonly disabled: boolean; readonly grants: readonly Grant[] }): boolean {
  return !user.disabled && user.grants.some((grant) => grant.profiles === "*" || grant.profiles.length > 0);
}

/**
 * DEC-GEN-02, DEC-OPS-01: the token of an `Authorization: Bearer <token>` header (RFC 6750: the scheme in any
 * case, one token without white space), or null for any other header or none.
 */
export function bearerTokenOf(authorization: string | null | undefined): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? null;
}
