/**
 * Sessions and sign-in (SES-*, DEC-SES-*, DEC-AUT-*): session lifetimes and tokens, which tenants a user may reach,
 * the lockout after failed attempts, and how passwords and API keys are checked; the use cases of signing in
 * (AuthService) and of users (UsersService), and the worker that removes expired sessions and lockout records.
 */

export { AuthService, type AuthServiceDeps, type IssuedSession, type Principal } from "./auth.use-cases.ts";
export { newLockoutVersion } from "./lockout.rules.ts";
export { passwordProblem, preparingSecrets } from "./secrets.rules.ts";
export {
  bearerTokenOf,
  type SessionPolicy,
  type SessionTimes,
  sessionPolicyFromLimits,
  type TenantAccess,
} from "./session.rules.ts";
export { sessionJanitor } from "./session-janitor.worker.ts";
export { type ApiKeyView, type GrantView, UsersService, type UserView } from "./users.use-cases.ts";
