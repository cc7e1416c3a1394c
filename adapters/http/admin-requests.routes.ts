import { Elysia, t } from "elysia";
import { managementError } from "../../core/errors/index.ts";
import {
  defaultRequestJournalLimit,
  maxRequestJournalLimit,
  requestJournalAccountChars,
  requestJournalBodyBytes,
  requestJournalQueryChars,
  requestNearMissCount,
  validateRequestMatcher,
} from "../../core/testing-tools/index.ts";
import { firstQueryValues } from "../runtime/query-values.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import { interfaceRouteTemplates, type TestingTools } from "./faults-and-journal.ts";
import { AnswerInteger, ErrorBody, requestBodyOf } from "./openapi-parts.ts";
import { compilePathPattern } from "./path-pattern.ts";
import { readWholeNumber } from "./query-parameters.ts";
import { readOptionalJsonObject } from "./strict-body.ts";

const secretsNote = 'named like a secret (authorization, cookie, utk, password, key, token, ...) read "[redacted]"';
const BodyView = t.Union(
  [
    t.Object({
      text: t.String({ description: `The body as UTF-8 text, its form fields and JSON members ${secretsNote}` }),
      bytes: AnswerInteger({ description: "How many bytes of it are kept" }),
      truncated: t.Boolean({ description: `Whether it had more than the ${requestJournalBodyBytes} bytes kept` }),
    }),
    t.Object({
      base64: t.String({ description: "The body's bytes in base64: it is not UTF-8, or it is compressed" }),
      bytes: AnswerInteger(),
      truncated: t.Boolean(),
    }),
    t.Null(),
  ],
  { description: "null: it had none" },
);
const Message = t.Object({
  headers: t.Record(t.String(), t.String(), {
    description: `Lower-case names, repeated ones joined by ", "; those ${secretsNote}`,
  }),
  body: BodyView,
});

const RequestEntry = t.Object({
  id: AnswerInteger({ description: "1, 2, 3, ... in the order the requests were answered on this node" }),
  at: t.String({ description: "When it arrived: real time (not the virtual clock), ISO 8601 UTC" }),
  method: t.String(),
  path: t.Union([t.String(), t.Null()], {
    description:
      "The route it matched, as registered (/v1/dle/accounts/:account/…); null when none did. The path as sent is in url",
  }),
  query: t.Record(t.String(), t.Union([t.String(), t.Array(t.String())]), {
    description: `The parameters that fit whole in the query's first ${requestJournalQueryChars} characters, those named like a secret (utk, password, key, token, ...) as "[redacted]"`,
  }),
  queryTruncated: t.Boolean({ description: "Whether parameters were left out because the query was longer" }),
  status: t.Union([AnswerInteger(), t.Null()], { description: "null when a fault dropped the connection" }),
  durationMs: t.Number(),
  account: t.Union([t.String(), t.Null()], {
    description: `The path's account, or /event's svc_account, at most ${requestJournalAccountChars} characters; null when it has none`,
  }),
  fault: t.Optional(t.String({ description: "The fault that answered or delayed it" })),
  url: t.String({ description: `The path and query as sent; query parameters ${secretsNote}` }),
  request: Message,
  response: t.Union([Message, t.Null()], { description: "null when a fault dropped the connection" }),
});
const ValueMatch = t.Union(
  [
    t.String({ description: "Equal to this" }),
    t.Object({ equals: t.String() }),
    t.Object({ contains: t.String() }),
    t.Object({ absent: t.Literal(true) }),
  ],
  { description: 'A text it equals, {"contains": …}, or {"absent": true}' },
);
const BodyMatch = t.Object({
  path: t.String({ description: 'A JSON path: $.name, [0], ["name"] steps; a form body\'s fields are its members' }),
  equals: t.Optional(t.Unknown({ description: "The JSON value it holds" })),
  contains: t.Optional(t.String({ description: "Text its string value contains" })),
});
const Matcher = t.Object({
  method: t.Optional(t.String()),
  path: t.Optional(
    t.String({
      description:
        "A pattern of the path as sent, in URLPattern's pathname syntax: * any run of characters, :name one segment",
    }),
  ),
  query: t.Optional(t.Record(t.String(), ValueMatch)),
  headers: t.Optional(t.Record(t.String(), ValueMatch, { description: "Names in any case" })),
  body: t.Optional(t.Union([BodyMatch, t.Array(BodyMatch)])),
  status: t.Optional(t.Integer({ minimum: 100, maximum: 599 })),
  account: t.Optional(t.String()),
});
const NearMiss = t.Object({
  request: RequestEntry,
  differences: t.Array(
    t.Object({
      field: t.String({
        description: "method, path, status, account, query <name>, header <name> or body <JSON path>",
      }),
      expected: t.String(),
      actual: t.Union([t.String(), t.Null()], { description: "null: the request had none" }),
    }),
  ),
});
const NearMisses = t.Array(NearMiss, {
  description: `When nothing matched: the ${requestNearMissCount} closest requests, closest first, and what differed`,
});
const FindQuery = t.Object({
  limit: t.Optional(
    t.String({
      description: `How many, newest first: 1 to ${maxRequestJournalLimit} (default ${defaultRequestJournalLimit})`,
    }),
  ),
});
const JournalQuery = t.Object(
  {
    method: t.Optional(t.String()),
    path: t.Optional(
      t.String({
        description:
          "A pattern of the route's template (/v1/dle/accounts/:account/*), not of the path as sent, in URLPattern's pathname syntax: * any run of characters, :name one segment. One that matches no route is 400 1400; the account is account=",
      }),
    ),
    status: t.Optional(t.String({ description: "A status, 200 to 599" })),
    account: t.Optional(t.String()),
    limit: t.Optional(
      t.String({
        description: `How many, newest first: 1 to ${maxRequestJournalLimit} (default ${defaultRequestJournalLimit})`,
      }),
    ),
  },
  { additionalProperties: true },
);
const tags = ["admin"];

/**
 * Why a `path` filter is refused when it matches no route: since the journal keeps the route's template, a
 * filter written for the paths as sent (`/v1/dle/accounts/acme/*`) would otherwise find nothing, silently.
 */
const matchesNoRoute =
  "matches no route: it matches the route's template (/v1/dle/accounts/:account/*), not the path as sent; give the account as account=";

/**
 * The request journal (issue 33): the latest requests the interface routes answered on this node (not the
 * admin API, the console, the health checks or the OpenAPI document), within its byte budget. `routes` are
 * the app's, read once it has them all, for the templates a `path` filter may match.
 */
export function adminRequestRoutes(tools: TestingTools, routes: () => ReadonlyArray<{ readonly path: string }>) {
  let templates: readonly string[] = [];
  const routeTemplates = () => {
    if (templates.length === 0) templates = interfaceRouteTemplates(routes());
    return templates;
  };
  // The group's own path is "", not "/": "/" would name it /admin/requests/ in the OpenAPI document, and the
  // typed client would then ask for that trailing slash.
  return new Elysia({ name: "admin-requests", prefix: "/admin/requests" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .get(
      "",
      ({ request }) => {
        const value = firstQueryValues(request);
        const given = (name: string) => {
          const text = value(name)?.trim();
          return text === undefined || text === "" ? undefined : text;
        };
        const path = given("path");
        if (path !== undefined && !path.startsWith("/") && !path.startsWith("*"))
          failWith(managementError("invalidParameter", { parameter: "path", problem: "must start with / (or *)" }));
        const route = path === undefined ? undefined : compilePathPattern(path);
        if (route !== undefined && !route.ok)
          failWith(managementError("invalidParameter", { parameter: "path", problem: route.error }));
        if (route !== undefined && !routeTemplates().some(route.value))
          failWith(managementError("invalidParameter", { parameter: "path", problem: matchesNoRoute }));
        const method = given("method");
        const account = given("account");
        const status = readWholeNumber("status", value("status"), 200, 599);
        const limit = readWholeNumber("limit", value("limit"), 1, maxRequestJournalLimit);
        return {
          maxBytes: tools.requestJournal.maxBytes,
          bytes: tools.requestJournal.bytes,
          kept: tools.requestJournal.size,
          requests: tools.requestJournal.query({
            ...(method === undefined ? {} : { method }),
            ...(route === undefined ? {} : { route: route.value }),
            ...(account === undefined ? {} : { account }),
            ...(status === undefined ? {} : { status }),
            ...(limit === undefined ? {} : { limit }),
          }),
        };
      },
      {
        query: JournalQuery,
        detail: {
          tags,
          summary: "The requests the interface routes answered, newest first",
          description:
            "Kept in memory on this node, the newest within its byte budget (SVC_REQUEST_JOURNAL_BYTES; 0: off). A bad status or limit, or a path pattern that matches no route's template, is 400 1400.",
        },
        response: {
          200: t.Object({
            maxBytes: AnswerInteger({
              description: "The journal's byte budget (SVC_REQUEST_JOURNAL_BYTES); 0: it is off",
            }),
            bytes: AnswerInteger({ description: "How many bytes the entries kept hold, as the budget counts them" }),
            kept: AnswerInteger({ description: "How many entries it keeps now" }),
            requests: t.Array(RequestEntry),
          }),
          400: ErrorBody,
          401: ErrorBody,
        },
      },
    )
    .post(
      "/find",
      async ({ request }) => {
        const limit = readWholeNumber("limit", firstQueryValues(request)("limit"), 1, maxRequestJournalLimit);
        return tools.requestJournal.find(await readMatcher(request), limit);
      },
      {
        parse: "none",
        query: FindQuery,
        detail: {
          tags,
          summary: "The requests that match a pattern, newest first; near misses when none did",
          description:
            "As WireMock's find: every field of the matcher is optional and every one given must hold. A bad field is 400 1400 naming it.",
          requestBody: requestBodyOf({ "application/json": Matcher }, "The matcher (none: every request)", false),
        },
        response: {
          200: t.Object({
            count: AnswerInteger({ description: "How many requests match, all of them" }),
            requests: t.Array(RequestEntry),
            nearMisses: NearMisses,
          }),
          400: ErrorBody,
          401: ErrorBody,
        },
      },
    )
    .post(
      "/count",
      async ({ request }) => {
        const { count, nearMisses } = tools.requestJournal.find(await readMatcher(request), 1);
        return { count, nearMisses };
      },
      {
        parse: "none",
        detail: {
          tags,
          summary: "How many requests match a pattern; near misses when none did",
          description: "As WireMock's count. A bad field is 400 1400 naming it.",
          requestBody: requestBodyOf({ "application/json": Matcher }, "The matcher (none: every request)", false),
        },
        response: {
          200: t.Object({ count: AnswerInteger(), nearMisses: NearMisses }),
          400: ErrorBody,
          401: ErrorBody,
        },
      },
    )
    .delete(
      "",
      () => {
        const removed = tools.requestJournal.size;
        tools.requestJournal.clear();
        return { removed };
      },
      {
        detail: { tags, summary: "Forget every request in the journal" },
        response: { 200: t.Object({ removed: AnswerInteger({ minimum: 0 }) }), 401: ErrorBody },
      },
    );
}

/** The matcher of a find or a count (issue 43), its path pattern compiled as the faults' are. */
async function readMatcher(request: Request) {
  const checked = validateRequestMatcher(await readOptionalJsonObject(request, Matcher), compilePathPattern);
  if (!checked.ok) failWith(checked.error);
  return checked.value;
}
