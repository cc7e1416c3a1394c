import { timingSafeEqual } from "node:crypto";
import { managementError } from "../../core/errors/index.ts";
import { bearerTokenOf } from "../../core/session/index.ts";
import { failWith } from "./error-mapping.ts";

/** DEC-OPS-01: the admin API takes `Authorization: Bearer <SVC_ADMIN_TOKEN>`; anything else is 401 1401. */
export function assertAdmin(authorization: string | undefined, token: string): void {
  if (!holdsAdminToken(authorization, token)) failWith(managementError("authenticationFailed"));
}

/** Whether an Authorization header is `Bearer <SVC_ADMIN_TOKEN>` (compared in constant time). */
export function holdsAdminToken(authorization: string | undefined, token: string): boolean {
  const given = Buffer.from(bearerTokenOf(authorization) ?? "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
