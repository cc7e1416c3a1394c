import { Elysia, t } from "elysia";
import { managementError } from "../../core/errors/index.ts";
import { maxFaultDelayMs, maxTrickleBytesPerSecond, validateFaultInput } from "../../core/testing-tools/index.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import type { TestingTools } from "./faults-and-journal.ts";
import { AnswerInteger, ErrorBody, requestBodyOf } from "./openapi-parts.ts";
import { compilePathPattern } from "./path-pattern.ts";
import { readOptionalJsonObject } from "./strict-body.ts";

const MethodSchema = t.Union(
  [
    t.Literal("GET"),
    t.Literal("HEAD"),
    t.Literal("POST"),
    t.Literal("PUT"),
    t.Literal("PATCH"),
    t.Literal("DELETE"),
    t.Literal("OPTIONS"),
  ],
  { description: "Only requests of this method (default: any)" },
);
const Malformation = t.Union([t.Literal("cut-body"), t.Literal("invalid-json"), t.Literal("wrong-content-type")], {
  description:
    "Spoil the answer (the fault's, or svc-hub's without a status): cut-body sends half the body and closes the connection, invalid-json half its text, wrong-content-type swaps JSON and text/html",
});
const HeaderValues = t.Record(t.String(), t.String());
const JsonPathMatch = t.Object(
  {
    path: t.String({ description: "A JSON path naming one value: $.items[0].sku, $['svc_event']" }),
    equals: t.Optional(t.Unknown({ description: "The value it must hold (any JSON); without it, any value" })),
  },
  { description: "Only requests whose JSON body holds this value" },
);
/** Issue 43: the chance, the spoiled or trickled answer, the headers and body to match. */
const answerChanges = {
  probability: t.Optional(
    t.Number({ minimum: 0, maximum: 1, description: "The chance a matching request is answered (default 1)" }),
  ),
  seed: t.Optional(t.Integer({ description: "Draws the same requests in every run (default: random)" })),
  malformed: t.Optional(Malformation),
  trickleBytesPerSecond: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: maxTrickleBytesPerSecond,
      description: "Send the answer's body this slowly, a tenth of a second's worth at a time",
    }),
  ),
  matchHeaders: t.Optional(
    t.Record(t.String(), t.String(), { description: "Only requests with these headers and values" }),
  ),
  matchJsonPath: t.Optional(JsonPathMatch),
};
const FaultBody = t.Object({
  method: t.Optional(MethodSchema),
  path: t.String({
    description:
      "The path pattern, in URLPattern's pathname syntax: * matches any run of characters (/ included), :name one segment; never /admin",
  }),
  account: t.Optional(
    t.String({ description: "Only requests of this account: the path's accounts/{account}, or /event's svc_account" }),
  ),
  times: t.Optional(t.Integer({ minimum: 1, description: "How many matching requests it answers (default 1)" })),
  status: t.Optional(t.Integer({ minimum: 200, maximum: 599, description: "The status to answer" })),
  body: t.Optional(t.Unknown({ description: "The answer's body: a string as text/plain, an object as JSON" })),
  headers: t.Optional(t.Record(t.String(), t.String(), { description: "Headers added to the answer" })),
  delayMs: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: maxFaultDelayMs,
      description: "Wait this long first; without a status the request then goes on to svc-hub",
    }),
  ),
  drop: t.Optional(t.Boolean({ description: "Close the connection without an answer (after the delay)" })),
  ...answerChanges,
});
const FaultView = t.Object({
  id: t.String({ description: "f1, f2, ... on this node" }),
  method: t.Union([MethodSchema, t.Null()]),
  path: t.String(),
  account: t.Union([t.String(), t.Null()]),
  times: AnswerInteger(),
  status: t.Union([AnswerInteger(), t.Null()]),
  body: t.Unknown(),
  headers: t.Record(t.String(), t.String()),
  delayMs: AnswerInteger(),
  drop: t.Boolean(),
  remaining: AnswerInteger({ description: "How many more matching requests it answers" }),
  probability: t.Number(),
  seed: t.Union([AnswerInteger(), t.Null()]),
  malformed: t.Union([Malformation, t.Null()]),
  trickleBytesPerSecond: t.Union([AnswerInteger(), t.Null()]),
  matchHeaders: HeaderValues,
  matchJsonPath: t.Union([JsonPathMatch, t.Null()]),
});
const Removed = t.Object({ removed: AnswerInteger({ minimum: 0, description: "How many faults were removed" }) });
const tags = ["admin"];

/**
 * Fault injection (issue 33): make the next N requests that match a method, a path pattern and an account
 * answer a chosen status and body, wait first, or lose their connection. Per node, in memory; POST
 * /admin/reset clears them. The admin API itself is never faulted.
 */
export function adminFaultRoutes(tools: TestingTools) {
  // The group's own path is "", not "/": "/" would name it /admin/faults/ in the OpenAPI document, and the
  // typed client would then ask for that trailing slash.
  return new Elysia({ name: "admin-faults", prefix: "/admin/faults" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .post(
      "",
      async ({ request, set }) => {
        const body = await readOptionalJsonObject(request, FaultBody);
        const checked = validateFaultInput(body ?? null);
        if (!checked.ok) failWith(checked.error);
        const matchesPath = compilePathPattern(checked.value.path);
        if (!matchesPath.ok)
          failWith(managementError("invalidParameter", { parameter: "path", problem: matchesPath.error }));
        set.status = 201;
        return tools.faults.add(checked.value, matchesPath.value);
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "Make the next matching requests fail on purpose",
          description:
            "A status (and body, headers), a delay, a dropped connection, a malformed or trickled answer, for the next `times` requests to the interface routes that match (method, path, account, headers, a body JSON path), each with a `probability`. The oldest matching fault answers. A bad field is 400 1400 naming it.",
          requestBody: requestBodyOf({ "application/json": FaultBody }, "The fault", true),
        },
        response: { 201: FaultView, 400: ErrorBody, 401: ErrorBody },
      },
    )
    .get("", () => ({ faults: tools.faults.list() }), {
      detail: { tags, summary: "The faults still waiting for requests, oldest first" },
      response: { 200: t.Object({ faults: t.Array(FaultView) }), 401: ErrorBody },
    })
    .delete(
      "",
      () => {
        const removed = tools.faults.size;
        tools.faults.clear();
        return { removed };
      },
      {
        detail: { tags, summary: "Remove every fault" },
        response: { 200: Removed, 401: ErrorBody },
      },
    )
    .delete(
      "/:id",
      ({ params }) => {
        if (!tools.faults.remove(params.id)) failWith(managementError("resourceNotFound"));
        return { removed: 1 };
      },
      {
        params: t.Object({ id: t.String() }),
        detail: { tags, summary: "Remove one fault; 404 when there is none of that id" },
        response: { 200: Removed, 401: ErrorBody, 404: ErrorBody },
      },
    );
}
