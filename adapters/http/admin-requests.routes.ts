import { Elysia, t } from "elysia";
import { managementError } from "../../core/errors/index.ts";
import {
  defaultRequestJournalLimit,
  maxRequestJournalLimit,
  requestJournalCapacity,
} from "../../core/testing-tools/index.ts";
import { firstQueryValues } from "../runtime/query-values.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import type { TestingTools } from "./faults-and-journal.ts";
import { ErrorBody } from "./openapi-parts.ts";
import { readWholeNumber } from "./query-parameters.ts";

const RequestEntry = t.Object({
  id: t.Integer({ description: "1, 2, 3, ... in the order the requests were answered on this node" }),
  at: t.String({ description: "When it arrived: real time (not the virtual clock), ISO 8601 UTC" }),
  method: t.String(),
  path: t.String({ description: "As sent; a moments lookup's visitor as … (PRV-09)" }),
  query: t.Record(t.String(), t.Union([t.String(), t.Array(t.String())]), {
    description: 'The query, parameters named like a secret (utk, password, key, token, ...) as "[redacted]"',
  }),
  status: t.Union([t.Integer(), t.Null()], { description: "null when a fault dropped the connection" }),
  durationMs: t.Number(),
  account: t.Union([t.String(), t.Null()], { description: "The path's account, or /event's svc_account" }),
  fault: t.Optional(t.String({ description: "The fault that answered or delayed it" })),
});
const JournalQuery = t.Object(
  {
    method: t.Optional(t.String()),
    path: t.Optional(t.String({ description: "A path pattern: * any run of characters, {name} one segment" })),
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
 * The request journal (issue 33): the latest requests the interface routes answered on this node (not the
 * admin API, the console, the health checks or the OpenAPI document), at most requestJournalCapacity of them.
 */
export function adminRequestRoutes(tools: TestingTools) {
  return new Elysia({ name: "admin-requests", prefix: "/admin/requests" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .get(
      "/",
      ({ request }) => {
        const value = firstQueryValues(request);
        const given = (name: string) => {
          const text = value(name)?.trim();
          return text === undefined || text === "" ? undefined : text;
        };
        const path = given("path");
        if (path !== undefined && !path.startsWith("/") && !path.startsWith("*"))
          failWith(managementError("invalidParameter", { parameter: "path", problem: "must start with / (or *)" }));
        const method = given("method");
        const account = given("account");
        const status = readWholeNumber("status", value("status"), 200, 599);
        const limit = readWholeNumber("limit", value("limit"), 1, maxRequestJournalLimit);
        return {
          capacity: tools.requestJournal.capacity,
          kept: tools.requestJournal.size,
          requests: tools.requestJournal.query({
            ...(method === undefined ? {} : { method }),
            ...(path === undefined ? {} : { path }),
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
          description: `Kept in memory on this node, the newest ${requestJournalCapacity}. A bad status or limit is 400 1400.`,
        },
        response: {
          200: t.Object({
            capacity: t.Integer({ description: "How many entries the journal keeps at most" }),
            kept: t.Integer({ description: "How many it keeps now" }),
            requests: t.Array(RequestEntry),
          }),
          400: ErrorBody,
          401: ErrorBody,
        },
      },
    )
    .delete(
      "/",
      () => {
        const removed = tools.requestJournal.size;
        tools.requestJournal.clear();
        return { removed };
      },
      {
        detail: { tags, summary: "Forget every request in the journal" },
        response: { 200: t.Object({ removed: t.Integer({ minimum: 0 }) }), 401: ErrorBody },
      },
    );
}
