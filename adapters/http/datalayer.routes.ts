import { Elysia, t } from "elysia";
import {
  readDataLayerEncoding,
  validateDataLayerBody,
  validateDataLayerContentType,
  validateDataLayerPath,
  validateProfilePath,
} from "../../core/datalayer/index.ts";
import { invalidRequestBecause, type ManagementError, managementError, quoted } from "../../core/errors/index.ts";
import type { DataLayerKey } from "../../core/ports/index.ts";
import type { Result } from "../../core/result.ts";
import type { Principal } from "../../core/session/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { dataLayerAccessError, openApiSecurity, requireAccess, sessionGuard } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import { ErrorBody, requestBodyOf } from "./openapi-parts.ts";
import { decodeUtf8, readRequestBody } from "./request-body.ts";

/** DLE-ERR-01, DLE-ERR-06, DLE-ERR-07, DEC-DLE-03, DEC-DLE-04: what an upload or update sends. */
const dataLayerBody = requestBodyOf(
  { "application/json": { type: "object", additionalProperties: true } },
  "The data layer: a JSON object of at most 1 MiB (limits.maxBodyBytes) once decompressed (Content-Encoding gzip is taken), no key holding a period at any depth, at most 64 levels of nesting",
);

const Pending = t.Object({ status: t.Literal("pending") });
const Status = t.Object({ status: t.Union([t.Literal("pending"), t.Literal("completed"), t.Literal("failed")]) });
const tags = ["hosted data layer (v1)"];
const v1Auth = "Session auth: cookie JSESSIONID and query parameter utk from POST /v1/login.";

/** Route parameters as Elysia hands them over: a segment that is not valid percent-encoding arrives as null. */
type PathParams = Record<string, string | null | undefined>;

function unwrap<T>(result: Result<T, ManagementError>): T {
  if (!result.ok) failWith(result.error);
  return result.value;
}

/** The methods a data layer's path takes (HEAD with GET), as a 405 names them in `Allow` (RFC 9110). */
const dataLayerMethods = ["GET", "HEAD", "POST", "PUT", "DELETE"];

/**
 * The hosted data layer API (v1): upload, update, delete, get status and list, under
 * /v1/dle/accounts/{account}/profiles/{profile}/datalayers. DLE-01..12, DLE-ERR-01..09, DEC-DLE-01..09.
 *
 * Checks run in this order, each answering as soon as it fails: the session (401 1401); the names of the
 * path, their characters and the 250 rule (400 1400); the account and profile exist (400 1400) and the
 * user holds a grant on them (401 1469); for upload and update the Content-Type, the encoding, the size,
 * the JSON (400 1400); then the data layer's own state (405 1464, 404 1404).
 */
export function dataLayerRoutes(deps: AppDeps) {
  const service = deps.dataLayers;

  /** DLE-ERR-02, DLE-ERR-03, DLE-ERR-04, DLE-ERR-05, DEC-DLE-02, DEC-GEN-03, DEC-GEN-04 */
  async function dataLayerOf(params: PathParams, principal: Principal): Promise<DataLayerKey> {
    const key = unwrap(validateDataLayerPath(params.account, params.profile, params.dl_id));
    await requireAccess(deps.auth, principal, key.account, key.profile, dataLayerAccessError);
    return key;
  }

  /** DLE-ERR-01, DLE-ERR-06, DLE-ERR-07, DLE-ERR-08, DEC-DLE-03, DEC-DLE-04 */
  async function bodyOf(request: Request): Promise<string> {
    unwrap(validateDataLayerContentType(request.headers.get("content-type")));
    const encoding = unwrap(readDataLayerEncoding(request.headers.get("content-encoding")));
    const bytes = await readRequestBody(request, deps.config.limits.maxBodyBytes, encoding);
    if (!bytes.ok) {
      failWith(
        invalidRequestBecause(
          bytes.error === "too-large"
            ? `the body is over ${deps.config.limits.maxBodyBytes} bytes (limits.maxBodyBytes)`
            : "the body is not valid gzip",
        ),
      );
    }
    const text = decodeUtf8(bytes.value);
    if (text === null) failWith(invalidRequestBecause("the body is not UTF-8"));
    return unwrap(validateDataLayerBody(text));
  }

  return new Elysia({ name: "datalayers", prefix: "/v1/dle/accounts/:account/profiles/:profile/datalayers" })
    .guard({ detail: { security: openApiSecurity.session } })
    .use(sessionGuard(deps.auth))
    .get(
      "",
      async ({ params, principal }) => {
        const tenant = unwrap(validateProfilePath((params as PathParams).account, (params as PathParams).profile));
        await requireAccess(deps.auth, principal, tenant.account, tenant.profile, dataLayerAccessError);
        return unwrap(await service.list(tenant.account, tenant.profile));
      },
      {
        detail: {
          tags,
          summary: "List: the names of the profile's data layers, in code-unit order (at most 1000)",
          description: `${v1Auth} More than 1000 data layers: 400 1400 with the list message.`,
        },
        response: { 200: t.Array(t.String()), 400: ErrorBody, 401: ErrorBody },
      },
    )
    .get(
      "/:dl_id",
      async ({ params, principal }) => unwrap(await service.status(await dataLayerOf(params, principal))),
      {
        detail: {
          tags,
          summary: "Get status: the state of the newest change (pending, completed or failed)",
          description: `${v1Auth} Statuses are kept 30 days after their last change; after that, or for an unknown dl_id, 404 1404.`,
        },
        response: { 200: Status, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    )
    .post(
      "/:dl_id",
      async ({ params, principal, request, set }) => {
        const key = await dataLayerOf(params, principal);
        const pending = unwrap(await service.upload(key, await bodyOf(request)));
        set.status = 201;
        return pending;
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "Upload a new data layer (a JSON object, at most 1 MiB, gzip accepted)",
          description: `${v1Auth} A dl_id that exists: 405 1464 (use PUT to update).`,
          requestBody: dataLayerBody,
        },
        response: { 201: Pending, 400: ErrorBody, 401: ErrorBody, 405: ErrorBody },
      },
    )
    .put(
      "/:dl_id",
      async ({ params, principal, request }) => {
        const key = await dataLayerOf(params, principal);
        return unwrap(await service.update(key, await bodyOf(request)));
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "Update an existing data layer (the whole JSON object)",
          description: `${v1Auth} A dl_id that does not exist: 404 1404.`,
          requestBody: dataLayerBody,
        },
        response: { 200: Pending, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    )
    .delete(
      "/:dl_id",
      async ({ params, principal }) => unwrap(await service.remove(await dataLayerOf(params, principal))),
      {
        parse: "none",
        detail: {
          tags,
          summary: "Delete a data layer: it stops being served once the delete completes",
          description: v1Auth,
        },
        response: { 200: Pending, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    )
    .all(
      "/*",
      async ({ params, principal, request, set }) => {
        const rest = ((params as PathParams)["*"] ?? "").replace(/\/+$/, "");
        // DEC-DLE-02: a "/" sent unencoded in a dl_id is a restricted character, as %2F is.
        if (rest.includes("/"))
          failWith(invalidRequestBecause(`the data layer id ${quoted(rest)} holds a "/", which names may not`));
        await dataLayerOf({ ...(params as PathParams), dl_id: rest }, principal);
        // A method the routes above take reached here by its path (`home//`, more than the one trailing "/"
        // the router forgives): no such resource, rather than a method it does take refused.
        if (dataLayerMethods.includes(request.method)) failWith(managementError("resourceNotFound"));
        set.headers.allow = dataLayerMethods.join(", ");
        failWith(managementError("methodNotAllowed"));
      },
      { parse: "none", detail: { hide: true } },
    );
}
