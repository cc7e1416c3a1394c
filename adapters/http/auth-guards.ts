import { Elysia } from "elysia";
import { invalidRequestBecause, type ManagementError, managementError, quoted } from "../../core/errors/index.ts";
import type { AuthService, Principal, TenantAccess } from "../../core/session/index.ts";
import { readCookieValue } from "../../core/visitors/index.ts";
import { firstQueryValues } from "../runtime/query-values.ts";
import { failWith } from "./error-mapping.ts";

/**
 * SES-07, DEC-GEN-02: the guard of every v1 route. The cookie JSESSIONID and the query parameter utk must
 * both belong to one live session; the route then sees `principal`. A new instance per use, so that Elysia
 * does not deduplicate it away between route plugins.
 */
export function sessionGuard(auth: AuthService) {
  return new Elysia().resolve({ as: "scoped" }, async ({ request }): Promise<{ principal: Principal }> => {
    // The first utk of the query string, as every other parameter is read (Elysia's `query` keeps the last).
    const utk = firstQueryValues(request)("utk");
    const result = await auth.authenticateSession(
      readCookieValue(request.headers.get("cookie"), "JSESSIONID") ?? undefined,
      utk,
    );
    if (!result.ok) failWith(result.error);
    return { principal: result.value };
  });
}

/** AUT-01, AUT-02, DEC-GEN-02: the guard of every v2 route: `Authorization: Bearer <token from /v2/auth>`. */
export function bearerGuard(auth: AuthService) {
  return new Elysia().resolve({ as: "scoped" }, async ({ request }): Promise<{ principal: Principal }> => {
    const result = await auth.authenticateBearer(request.headers.get("authorization") ?? undefined);
    if (!result.ok) failWith(result.error);
    return { principal: result.value };
  });
}

/** DEC-GEN-04: revisions, file status and visitor privacy say 404 1240 / 1250 for unknown names. */
export function standardAccessError(access: Exclude<TenantAccess, "granted">): ManagementError {
  switch (access) {
    case "unknown-account":
      return managementError("accountNotFound");
    case "unknown-profile":
      return managementError("profileNotFound");
    case "no-grant":
      return managementError("permissionDenied");
  }
}

/** DEC-GEN-04, DLE-ERR-05: the data layer API says 400 1400 for an unknown (mistyped) account or profile. */
export function dataLayerAccessError(
  access: Exclude<TenantAccess, "granted">,
  account: string,
  profile: string,
): ManagementError {
  switch (access) {
    case "no-grant":
      return managementError("permissionDenied");
    case "unknown-account":
      return invalidRequestBecause(`there is no account ${quoted(account)}`);
    case "unknown-profile":
      return invalidRequestBecause(`the account ${quoted(account)} has no profile ${quoted(profile)}`);
  }
}

/** Lets the call through when access is granted; otherwise answers the API's error for it. */
export async function requireAccess(
  auth: AuthService,
  principal: Principal,
  account: string,
  profile: string,
  errorFor: (
    access: Exclude<TenantAccess, "granted">,
    account: string,
    profile: string,
  ) => ManagementError = standardAccessError,
): Promise<void> {
  const access = await auth.decideAccess(principal, account, profile);
  if (access !== "granted") failWith(errorFor(access, account, profile));
}

/**
 * What each guard asks for, for the OpenAPI document (app.ts names the schemes): the admin token; the
 * session's cookie and utk together; a v2 bearer token.
 */
export const openApiSecurity: Record<"admin" | "session" | "bearer", Array<Record<string, string[]>>> = {
  admin: [{ admin: [] }],
  session: [{ session: [], utk: [] }],
  bearer: [{ bearer: [] }],
};
