import { Elysia, t } from "elysia";
import type { AppDeps } from "./app-deps.ts";
import { bearerGuard, requireAccess } from "./auth-guards.ts";

const ErrorBody = t.Object({ returnCode: t.Integer(), message: t.String() });
const TenantParams = t.Object({ account: t.String(), profile: t.String() });

/**
 * The visitor privacy API (v2), bearer auth (PRV-01). So far: the visitor ID attributes of a profile (PRV-08).
 */
export function privacyRoutes(deps: AppDeps) {
  return new Elysia({ prefix: "/v2/visitor/accounts/:account/profiles/:profile" })
    .use(bearerGuard(deps.auth))
    .get(
      "/ids",
      async ({ params, principal }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        const profile = await deps.stores.tenancy.findProfile(params.account, params.profile);
        return Object.fromEntries((profile?.config.visitorIdAttributes ?? []).map((attribute) => [String(attribute.id), attribute.name]));
      },
      {
        params: TenantParams,
        detail: { tags: ["visitor privacy (v2)"], summary: "The visitor ID attributes of the profile: numeric id → name", security: [{ bearer: [] }] },
        response: { 200: t.Record(t.String(), t.String()), 401: ErrorBody, 404: ErrorBody },
      },
    );
}
