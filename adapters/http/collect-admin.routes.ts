import { Elysia, t } from "elysia";
import { managementError } from "../../core/errors/index.ts";
import { type EventQuery, type StoredEvent, type Verdict, verdicts } from "../../core/ports/index.ts";
import { firstQueryValues } from "../runtime/query-values.ts";
import type { AppDeps } from "./app-deps.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { failWith, jsonResponse } from "./error-mapping.ts";
import { AnswerInteger, ErrorBody } from "./openapi-parts.ts";
import { readWholeNumber } from "./query-parameters.ts";

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);

/** A stored event as the admin API shows it (GET /admin/events, and the console's routes). */
export const EventView = t.Object({
  seq: AnswerInteger({ description: "Sequence number: increasing in commit order" }),
  account: t.String(),
  profile: t.String(),
  visitorId: t.String({ description: "The resolved svc_visitor_id" }),
  visitorIdSource: t.String({ description: "override, tapid, visitor_id, first_party or new (DEC-COL-09)" }),
  thirdPartyVisitorId: nullable(t.String()),
  firstPartyVisitorId: nullable(t.String()),
  event: nullable(t.String()),
  datasource: nullable(t.String()),
  traceId: nullable(t.String()),
  receivedAt: t.String({ description: "Virtual-clock time, ISO 8601" }),
  receivedAtMs: AnswerInteger(),
  data: t.Record(t.String(), t.Unknown(), { description: "Every stored parameter" }),
  verdict: t.Union([t.Literal("valid"), t.Literal("invalid"), t.Literal("none")], {
    description: "The tracking plan's verdict: none when no schema applies (docs/configuration.md, Tracking plan)",
  }),
  violations: t.Array(
    t.Object({
      parameter: t.String({ description: "The event parameter at fault; empty for the event as a whole" }),
      path: t.String({ description: "Where in the parameters, as a JSON Pointer" }),
      rule: t.String({ description: "The JSON Schema keyword that failed" }),
      value: t.Optional(t.Unknown({ description: "The offending value; absent when missing" })),
      message: t.String(),
    }),
    { description: "With invalid, every violation; otherwise empty" },
  ),
});

const VerdictTally = {
  valid: AnswerInteger({ minimum: 0 }),
  invalid: AnswerInteger({ minimum: 0 }),
  none: AnswerInteger({ minimum: 0 }),
};

const VerdictCountsView = t.Object({
  byEvent: t.Array(
    t.Object({ event: nullable(t.String({ description: "svc_event; null: events without one" })), ...VerdictTally }),
    {
      description: "By event name, in name order; events without a name last",
    },
  ),
  total: t.Object(VerdictTally),
});

const EventsView = t.Object({
  events: t.Array(EventView),
  nextAfterSeq: nullable(AnswerInteger({ description: "order=asc: pass as afterSeq for the next page" })),
  nextBeforeSeq: nullable(AnswerInteger({ description: "order=desc: pass as beforeSeq for the next page" })),
});

const Count = AnswerInteger({ minimum: 0 });
const StatsView = t.Object({
  accepted: Count,
  filteredBots: Count,
  rateLimited: Count,
  storageUnavailable: Count,
  rejected: t.Record(t.String(), Count, { description: "Refusals by reason" }),
  recentRejections: t.Array(
    t.Object({
      at: t.String(),
      method: t.String(),
      status: AnswerInteger(),
      reason: t.String(),
      xError: t.String(),
      account: nullable(t.String()),
      profile: nullable(t.String()),
      traceId: nullable(t.String()),
      userAgent: nullable(t.String()),
    }),
  ),
  commits: t.Object({ batches: Count, committed: Count, failedBatches: Count, largestBatch: Count, pending: Count }),
  limits: t.Object({ collectEventsPerSecond: AnswerInteger(), maxBodyBytes: AnswerInteger() }),
});

/** The filters the events query and the verdict counts share. */
const eventFilters = {
  account: t.Optional(t.String()),
  profile: t.Optional(t.String()),
  event: t.Optional(t.String({ description: "svc_event" })),
  from: t.Optional(t.String({ description: "Received at or after: ISO 8601 or epoch ms (virtual clock)" })),
  to: t.Optional(t.String({ description: "Received at or before: ISO 8601 or epoch ms (virtual clock)" })),
};

const defaultLimit = 100;
const maxLimit = 1000;

/** ISO 8601 or epoch milliseconds; a bad value is 400 1400 naming the field. */
function readTime(field: string, input: string | undefined): number | undefined {
  if (input === undefined || input === "") return undefined;
  const trimmed = input.trim();
  const parsed = /^\d+$/.test(trimmed) ? Number(trimmed) : Date.parse(trimmed);
  if (!Number.isFinite(parsed))
    failWith(
      managementError("invalidParameter", {
        parameter: field,
        problem: "must be an ISO 8601 time or epoch milliseconds",
      }),
    );
  return parsed;
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/** The tracking plan's verdict to filter by; a bad value is 400 1400 naming what it may be. */
function readVerdict(input: string | undefined): Verdict | undefined {
  const given = present(input?.trim());
  if (given === undefined) return undefined;
  const verdict = verdicts.find((candidate) => candidate === given);
  if (verdict === undefined)
    failWith(
      managementError("invalidParameter", {
        parameter: "verdict",
        problem: `must be ${verdicts.join(", ").replace(/, (?=[^,]*$)/, " or ")}, not "${given}"`,
      }),
    );
  return verdict;
}

function readOrder(input: string | undefined): "asc" | "desc" {
  const given = present(input?.trim());
  if (given === undefined) return "asc";
  if (given !== "asc" && given !== "desc")
    failWith(
      managementError("invalidParameter", { parameter: "order", problem: `must be asc or desc, not "${given}"` }),
    );
  return given;
}

/** A stored event as EventView shows it: `receivedAt` in ISO 8601 beside `receivedAtMs`. */
export function eventViewOf(event: StoredEvent) {
  const { seq, ...rest } = event;
  return { seq, ...rest, receivedAt: new Date(event.receivedAt).toISOString(), receivedAtMs: event.receivedAt };
}

/**
 * Admin views of collection (svc-hub's own, behind the admin token): the stored events, so that tests and
 * users can see what arrived, and the counters with the latest refusals and their X-Error, to see why
 * something did not.
 */
export function collectAdminRoutes(deps: AppDeps) {
  return new Elysia({ name: "collect-admin", prefix: "/admin" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .get(
      "/events",
      async ({ request }) => {
        // Each parameter's first value, as the other query APIs read a repeated one; checked here, so that a
        // bad value is named with what it should be.
        const query = firstQueryValues(request);
        const from = readTime("from", query("from"));
        const to = readTime("to", query("to"));
        const order = readOrder(query("order"));
        const eventQuery: EventQuery = {
          account: present(query("account")),
          profile: present(query("profile")),
          visitorId: present(query("visitor")),
          event: present(query("event")),
          traceId: present(query("traceId")),
          search: present(query("search")),
          verdict: readVerdict(query("verdict")),
          from,
          to,
          afterSeq: readWholeNumber("afterSeq", query("afterSeq"), 0),
          beforeSeq: readWholeNumber("beforeSeq", query("beforeSeq"), 0),
          limit: readWholeNumber("limit", query("limit"), 1, maxLimit) ?? defaultLimit,
          order,
        };
        const events = await deps.collector.storedEvents(eventQuery);
        const full = events.length === eventQuery.limit;
        const last = events.at(-1)?.seq ?? null;
        // A Response, so that data keys such as `__proto__` are written exactly as stored.
        return jsonResponse(200, {
          events: events.map(eventViewOf),
          nextAfterSeq: full && order === "asc" ? last : null,
          nextBeforeSeq: full && order === "desc" ? last : null,
        }) as unknown as typeof EventsView.static;
      },
      {
        query: t.Object({
          ...eventFilters,
          visitor: t.Optional(t.String({ description: "The resolved visitor ID" })),
          traceId: t.Optional(t.String({ description: "svc_trace_id" })),
          search: t.Optional(
            t.String({
              description: "Events with a stored parameter whose name or value holds this text (case matters)",
            }),
          ),
          afterSeq: t.Optional(t.String({ description: "Sequence numbers above this one: a whole number from 0" })),
          beforeSeq: t.Optional(t.String({ description: "Sequence numbers below this one: a whole number from 0" })),
          limit: t.Optional(
            t.String({ description: `How many: a whole number from 1 to ${maxLimit} (default ${defaultLimit})` }),
          ),
          order: t.Optional(t.String({ description: "asc or desc, by sequence number (default asc)" })),
          verdict: t.Optional(t.String({ description: "The tracking plan's verdict: valid, invalid or none" })),
        }),
        detail: { tags: ["admin", "collect"], summary: "Query the stored events" },
        response: { 200: EventsView, 400: ErrorBody, 401: ErrorBody },
      },
    )
    .get(
      "/events/verdicts",
      async ({ request }) => {
        const query = firstQueryValues(request);
        const byEvent = await deps.collector.verdictCounts({
          account: present(query("account")),
          profile: present(query("profile")),
          event: present(query("event")),
          from: readTime("from", query("from")),
          to: readTime("to", query("to")),
        });
        const total = { valid: 0, invalid: 0, none: 0 };
        for (const counts of byEvent) for (const verdict of verdicts) total[verdict] += counts[verdict];
        return { byEvent, total };
      },
      {
        query: t.Object(eventFilters),
        detail: {
          tags: ["admin", "collect"],
          summary: "Count the stored events' tracking-plan verdicts (valid, invalid, none) by event name",
        },
        response: { 200: VerdictCountsView, 400: ErrorBody, 401: ErrorBody },
      },
    )
    .get(
      "/collect/stats",
      async () => ({
        ...(await deps.collectStats()),
        limits: {
          collectEventsPerSecond: deps.config.limits.collectEventsPerSecond,
          maxBodyBytes: deps.config.limits.maxBodyBytes,
        },
      }),
      {
        detail: {
          tags: ["admin", "collect"],
          summary:
            "Collection counters of every node on the store: accepted, filtered bots, refusals by reason, latest refusals",
        },
        response: { 200: StatsView, 401: ErrorBody },
      },
    );
}
