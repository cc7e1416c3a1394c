import { Elysia, t } from "elysia";
import { type ManagementError, managementError } from "../../core/errors/index.ts";
import type { Result } from "../../core/result.ts";
import type { AppDeps } from "./app-deps.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import { ErrorBody, requestBodyOf } from "./openapi-parts.ts";
import { readOptionalJsonObject, strictJsonBody } from "./strict-body.ts";

const Grant = t.Object({ account: t.String(), profiles: t.Union([t.Literal("*"), t.Array(t.String())]) });
const UserView = t.Object({
  email: t.String(),
  disabled: t.Boolean(),
  grants: t.Array(Grant),
  createdAt: t.String(),
  updatedAt: t.String(),
});
const ApiKeyView = t.Object({
  id: t.String(),
  user: t.String(),
  createdAt: t.String(),
  revokedAt: t.Union([t.String(), t.Null()]),
});
const EmailParams = t.Object({ email: t.String() });

function unwrap<T>(result: Result<T, ManagementError>): T {
  if (!result.ok) failWith(result.error);
  return result.value;
}

/** Admin API for users and API keys (behind the admin token). Keys are shown once, when issued. */
export function adminUsersRoutes(deps: AppDeps) {
  const tags = ["admin: users and keys"];
  return new Elysia({ name: "admin-users", prefix: "/admin/users" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .get("", () => deps.users.list(), {
      detail: { tags, summary: "List users (never their hashes)" },
      response: { 200: t.Array(UserView), 401: ErrorBody },
    })
    .post(
      "",
      async ({ body, set }) => {
        const created = unwrap(await deps.users.create(body));
        set.status = 201;
        return created;
      },
      {
        ...strictJsonBody(
          t.Object({
            email: t.String(),
            password: t.String(),
            grants: t.Optional(t.Array(Grant)),
            disabled: t.Optional(t.Boolean()),
          }),
        ),
        detail: { tags, summary: "Create a user" },
        response: { 201: UserView, 400: ErrorBody, 401: ErrorBody },
      },
    )
    .get("/:email", async ({ params }) => unwrap(await deps.users.get(params.email)), {
      params: EmailParams,
      detail: { tags, summary: "One user" },
      response: { 200: UserView, 401: ErrorBody, 404: ErrorBody },
    })
    .put(
      "/:email/password",
      async ({ params, body }) => unwrap(await deps.users.resetPassword(params.email, body.password)),
      {
        params: EmailParams,
        ...strictJsonBody(t.Object({ password: t.String() })),
        detail: { tags, summary: "Reset the password (ends the user's sessions and unlocks the name)" },
        response: { 200: UserView, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    )
    .delete("/:email/lockout", async ({ params }) => unwrap(await deps.users.unlock(params.email)), {
      params: EmailParams,
      detail: { tags, summary: "Unlock the user's name: its failed logins and key checks are forgotten (DEC-SES-01)" },
      response: { 200: UserView, 401: ErrorBody, 404: ErrorBody },
    })
    .put("/:email/grants", async ({ params, body }) => unwrap(await deps.users.setGrants(params.email, body.grants)), {
      params: EmailParams,
      ...strictJsonBody(t.Object({ grants: t.Array(Grant) })),
      detail: { tags, summary: "Replace the user's grants" },
      response: { 200: UserView, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
    })
    .put(
      "/:email/disabled",
      async ({ params, body }) => unwrap(await deps.users.setDisabled(params.email, body.disabled)),
      {
        params: EmailParams,
        ...strictJsonBody(t.Object({ disabled: t.Boolean() })),
        detail: { tags, summary: "Disable (ends the user's sessions) or enable a user" },
        response: { 200: UserView, 401: ErrorBody, 404: ErrorBody },
      },
    )
    .get("/:email/api-keys", async ({ params }) => unwrap(await deps.users.listApiKeys(params.email)), {
      params: EmailParams,
      detail: { tags, summary: "List the user's API keys (ids and dates, never the keys)" },
      response: { 200: t.Array(ApiKeyView), 401: ErrorBody, 404: ErrorBody },
    })
    .post(
      "/:email/api-keys",
      async ({ params, request, set }) => {
        const issued = unwrap(await deps.users.issueApiKey(params.email, await keyIdOfBody(request)));
        set.status = 201;
        return issued;
      },
      {
        params: EmailParams,
        // Read by keyIdOfBody: Elysia checks nothing against a body schema that is optional at its root, so
        // `garbage` or `[1]` issued a key.
        parse: "none",
        detail: {
          tags,
          summary: "Issue an API key; the key is in this answer only",
          requestBody: requestBodyOf(
            { "application/json": KeyIssueBody },
            "None, or the id the key is to have (A-Z a-z 0-9 _ - ~)",
            false,
          ),
        },
        response: {
          201: t.Composite([ApiKeyView, t.Object({ key: t.String() })]),
          400: ErrorBody,
          401: ErrorBody,
          404: ErrorBody,
        },
      },
    )
    .delete(
      "/:email/api-keys/:id",
      async ({ params }) => unwrap(await deps.users.revokeApiKey(params.email, params.id)),
      {
        params: t.Object({ email: t.String(), id: t.String() }),
        detail: { tags, summary: "Revoke an API key at once (tokens already issued live until they expire)" },
        response: { 200: ApiKeyView, 401: ErrorBody, 404: ErrorBody },
      },
    );
}

const KeyIssueBody = t.Object({ id: t.Optional(t.String()) });

/** The body of an API key's issue: none (or only white space), or a JSON object with at most a string `id`. */
async function keyIdOfBody(request: Request): Promise<string | undefined> {
  const body = await readOptionalJsonObject(request, KeyIssueBody);
  const id = body?.id;
  if (id !== undefined && typeof id !== "string")
    failWith(managementError("invalidParameter", { parameter: "id", problem: "must be a string" }));
  return id as string | undefined;
}
