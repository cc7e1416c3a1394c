/**
 * Sessions and sign-in (SES-*, DEC-SES-*, DEC-AUT-*): session lifetimes and tokens, which tenants a user may reach,
 * the lockout after failed attempts, and how passwords and API keys are checked; the use cases of signing in
 * (AuthService) and of users (UsersService), and the worker that removes expired sessions and lockout records.
 */

export {
  AuthService,
  type AuthServiceDeps,
  type IssuedSession,
  type Principal,
  tokenLifetimeSeconds,
} from "./auth.use-cases.ts";
export {
  type AttemptDecision,
  type LockoutPolicy,
  type LockoutState,
  lockoutPolicyFromLimits,
  lockoutRelevantUntil,
  newLockoutVersion,
  noFailures,
  reserveAttempt,
  settleAttempt,
  unlockAttempts,
  withdrawAttempt,
} from "./lockout.rules.ts";
export {
  apiKeysToCheck,
  issuedApiKey,
  issuedApiKeySeed,
  minimumPasswordLength,
  passwordProblem,
  preparingSecrets,
} from "./secrets.rules.ts";
export {
  bearerTokenOf,
  decideTenantAccess,
  isSessionLive,
  isTokenOfCurrentGeneration,
  mayLogIn,
  mergeGrants,
  newTokenGeneration,
  type SessionPolicy,
  type SessionTimes,
  sessionPolicyFromLimits,
  shouldTouchSession,
  type TenantAccess,
} from "./session.rules.ts";
export { sessionJanitor } from "./session-janitor.worker.ts";
export {
  type ApiKeyView,
  type GrantView,
  maxEmailLength,
  UsersService,
  type UserView,
  userView,
} from "./users.use-cases.ts";
