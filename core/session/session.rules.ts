import type { Grant } from "../config/config.model.ts";

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
 * Whether a bearer token issued at `issuedAtSeconds` (its `iat`) outlives the user's `tokensValidAfter` (a
 * password reset, a disabling): only a token of a later second does. `iat` has whole seconds, so the second of
 * the cutoff itself is refused: tokens issued in it after the cutoff carry the next second (tokenIssuedAt).
 */
export function isTokenIssuedAfterCutoff(issuedAtSeconds: number, tokensValidAfter: number | null): boolean {
  return tokensValidAfter === null || issuedAtSeconds > Math.floor(tokensValidAfter / 1000);
}

/**
 * The `iat` of a token issued at `now` to a user whose tokens before `tokensValidAfter` are refused: the second
 * of `now`, or the second after the cutoff's when that is later (a token issued in the cutoff's own second, after
 * it, must be accepted; another node's clock may also run behind the one that set the cutoff).
 */
export function tokenIssuedAt(now: number, tokensValidAfter: number | null): number {
  const second = Math.floor(now / 1000);
  return tokensValidAfter === null ? second : Math.max(second, Math.floor(tokensValidAfter / 1000) + 1);
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
