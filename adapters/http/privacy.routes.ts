import { Elysia, t } from "elysia";
import { invalidRequestBecause, type ManagementError } from "../../core/errors/index.ts";
import { refuseQueryParameters } from "../../core/privacy/index.ts";
import type { Result } from "../../core/result.ts";
import { queryParamsOf } from "../runtime/query-values.ts";
import type { AppDeps } from "./app-deps.ts";
import { bearerGuard, requireAccess } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import { withholdBodyFromJournal } from "./faults-and-journal.ts";
import { AnswerInteger, ErrorBody, formBodyOf } from "./openapi-parts.ts";
import { readFormFields } from "./request-body.ts";

const NotFoundBody = t.Object({
  returnCode: AnswerInteger(),
  message: t.String(),
  transaction_id: t.Optional(t.String()),
});
const TenantParams = t.Object({ account: t.String(), profile: t.String() });
const TransactionState = t.Union([t.Literal("PENDING"), t.Literal("SUCCESS"), t.Literal("FAILED")]);
const VisitorAnswer = t.Object(
  {
    transaction_id: t.String(),
    transactionId: t.String({ description: "The same value as transaction_id" }),
    live: t.Boolean({ description: "true while the visitor's visit is open (30 minutes without events end it)" }),
    visitor: t.Object({
      metrics: t.Record(t.String(), t.Number()),
      dates: t.Record(t.String(), AnswerInteger({ description: "epoch milliseconds" })),
      properties: t.Record(t.String(), t.String()),
      flags: t.Record(t.String(), t.Boolean()),
      badges: t.Array(t.String()),
      audiences: t.Array(t.String()),
      secondary_ids: t.Record(t.String(), t.String()),
    }),
  },
  { description: "DEC-PRV-01: keys are attribute ids (audiences UIDs) or, with prettyName=true, names; PII included" },
);
const tags = ["visitor privacy (v2)"];
const security = [{ bearer: [] }];

/** Form bodies of a delete are two short fields; anything larger is refused unread. */
const maxFormBytes = 16 * 1024;

function unwrap<T>(result: Result<T, ManagementError>): T {
  if (!result.ok) failWith(result.error);
  return result.value;
}

/** The query string's parameters (their first values are read: URLSearchParams.get). */
function queryOf(request: Request): URLSearchParams {
  return queryParamsOf(request.url);
}

/**
 * The visitor privacy API (v2), bearer auth (PRV-01..12, DEC-PRV-01..04): get a visitor, request its
 * deletion, read a transaction, list the visitor ID attributes. Checks run in this order: the token (401
 * 1401), the account and profile (404 1240 / 1250) and the grant (401 1469), the parameters (400 1400).
 */
export function privacyRoutes(deps: AppDeps) {
  const privacy = deps.privacy;

  return new Elysia({ name: "privacy", prefix: "/v2/visitor/accounts/:account/profiles/:profile" })
    .use(bearerGuard(deps.auth))
    .get(
      "",
      async ({ params, principal, request }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        const query = queryOf(request);
        return unwrap(
          await privacy.getVisitor({
            account: params.account,
            profile: params.profile,
            attributeId: query.get("attributeId") ?? undefined,
            attributeValue: query.get("attributeValue") ?? undefined,
            prettyName: query.get("prettyName") ?? undefined,
            requestedBy: principal.email,
          }),
        );
      },
      {
        params: TenantParams,
        query: t.Object({
          attributeId: t.Optional(
            t.String({ description: "The numeric id of a visitor ID attribute of the profile (see .../ids)" }),
          ),
          attributeValue: t.Optional(t.String({ description: "Its value, URL-encoded (an e-mail's + as %2B)" })),
          prettyName: t.Optional(t.String({ description: "true: keys are names; false (default): numeric ids" })),
        }),
        detail: { tags, summary: "The record of one visitor (a transaction, SUCCESS at once)", security },
        response: { 200: VisitorAnswer, 400: ErrorBody, 401: ErrorBody, 404: NotFoundBody },
      },
    )
    .delete(
      "",
      async ({ params, principal, request, set }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        unwrap(refuseQueryParameters(queryOf(request).keys()));
        withholdBodyFromJournal(request);
        const form = await readFormFields(request, maxFormBytes);
        // DEC-PRV-02: not a form (or an oversized one) is a bad request like any other.
        if (!form.ok) {
          failWith(
            invalidRequestBecause(
              form.error === "not-a-form"
                ? "the body must be a form (Content-Type application/x-www-form-urlencoded)"
                : `the form is over ${maxFormBytes} bytes`,
            ),
          );
        }
        const accepted = unwrap(
          await privacy.requestDeletion({
            account: params.account,
            profile: params.profile,
            attributeId: form.value.get("attributeId"),
            attributeValue: form.value.get("attributeValue"),
            requestedBy: principal.email,
          }),
        );
        set.status = 202;
        return accepted;
      },
      {
        parse: "none",
        params: TenantParams,
        detail: {
          tags,
          summary: "Request the deletion of a visitor and every visitor stitched to it (asynchronous)",
          description:
            "The fields go in the form body, never the query string. While a deletion of the same attribute and value is PENDING, its transactionId is answered again.",
          requestBody: formBodyOf(
            { attributeId: "The numeric id of a visitor ID attribute of the profile", attributeValue: "Its value" },
            "The visitor to delete, as form fields",
          ),
          security,
        },
        response: { 202: t.Object({ transactionId: t.String() }), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    )
    .get(
      "/transactions/:transactionId",
      async ({ params, principal }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        return unwrap(await privacy.transactionState(params.account, params.profile, params.transactionId));
      },
      {
        params: t.Object({ account: t.String(), profile: t.String(), transactionId: t.String() }),
        detail: { tags, summary: "The state of a transaction: {<id>: PENDING | SUCCESS | FAILED}", security },
        response: { 200: t.Record(t.String(), TransactionState), 401: ErrorBody, 404: ErrorBody },
      },
    )
    .get(
      "/ids",
      async ({ params, principal }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        return privacy.visitorIdAttributes(params.account, params.profile);
      },
      {
        params: TenantParams,
        detail: { tags, summary: "The visitor ID attributes of the profile: numeric id → name", security },
        response: { 200: t.Record(t.String(), t.String()), 401: ErrorBody, 404: ErrorBody },
      },
    );
}
