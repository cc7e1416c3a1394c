import { Elysia, t } from "elysia";
import { type EventExpectation, EventExpectations } from "../../core/collect/index.ts";
import { managementError } from "../../core/errors/index.ts";
import { hostEventLoop } from "../runtime/event-loop.ts";
import type { AppDeps } from "./app-deps.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { EventView, eventViewOf } from "./collect-admin.routes.ts";
import { connectionOf, idleTimeoutSeconds } from "./connection.ts";
import { failWith, jsonResponse } from "./error-mapping.ts";
import { AnswerInteger, ErrorBody } from "./openapi-parts.ts";
import { strictJsonBody } from "./strict-body.ts";

const maxWaitMs = 600_000;
const defaultTimeoutMs = 5_000;
const maxLimit = 1000;
const defaultLimit = 100;

const filterFields = {
  account: t.Optional(t.String()),
  profile: t.Optional(t.String()),
  visitor: t.Optional(t.String({ description: "The resolved visitor ID" })),
  event: t.Optional(t.String({ description: "svc_event" })),
  traceId: t.Optional(t.String({ description: "svc_trace_id" })),
  verdict: t.Optional(
    t.Union([t.Literal("valid"), t.Literal("invalid"), t.Literal("none")], {
      description: "The tracking plan's verdict",
    }),
  ),
  params: t.Optional(
    t.Record(t.String(), t.String(), {
      description:
        "Stored parameters and their values, compared as text: a number or boolean as written in JSON (2, true), an array or object as its JSON",
    }),
  ),
  since: t.Optional(
    t.Union([t.String(), t.Integer()], {
      description: "Received at or after: ISO 8601 or epoch ms (virtual clock)",
    }),
  ),
  afterSeq: t.Optional(t.Integer({ minimum: 0, description: "Only sequence numbers above this one" })),
  limit: t.Optional(
    t.Integer({
      minimum: 1,
      maximum: maxLimit,
      description: `How many of the matching events to answer, oldest first (default ${defaultLimit}); all are counted`,
    }),
  ),
};
const CountBody = t.Object(filterFields);
const WaitBody = t.Object({
  ...filterFields,
  min: t.Optional(t.Integer({ minimum: 1, description: "How many matching events end the wait (default 1)" })),
  timeoutMs: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: maxWaitMs,
      description: `Real milliseconds to wait at most (default ${defaultTimeoutMs})`,
    }),
  ),
});
const CountView = t.Object({
  count: AnswerInteger({ minimum: 0, description: "How many stored events match" }),
  events: t.Array(EventView, { description: "The first `limit` of them, oldest first" }),
});
const WaitView = t.Object({
  met: t.Boolean({ description: "Whether at least `min` matching events were stored before the timeout" }),
  min: AnswerInteger(),
  count: AnswerInteger({ minimum: 0, description: "How many stored events match (when the wait ended)" }),
  waitedMs: AnswerInteger({ minimum: 0, description: "How long the wait took, real milliseconds" }),
  events: t.Array(EventView, { description: "The first `limit` of them, oldest first" }),
});

type FilterBody = typeof CountBody.static;

/** Resolves once `signal` is aborted: the client of a wait went away, and nothing is left to wait for. */
function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** The expectation a body names; `since` in ISO 8601 or epoch ms, a bad one 400 1400 naming it. */
function expectationOf(body: FilterBody): EventExpectation {
  let since: number | undefined;
  if (body.since !== undefined) {
    since =
      typeof body.since === "number"
        ? body.since
        : /^\d+$/.test(body.since)
          ? Number(body.since)
          : Date.parse(body.since);
    if (!Number.isFinite(since))
      failWith(
        managementError("invalidParameter", {
          parameter: "since",
          problem: "must be an ISO 8601 time or epoch milliseconds",
        }),
      );
  }
  return {
    account: body.account,
    profile: body.profile,
    visitorId: body.visitor,
    event: body.event,
    traceId: body.traceId,
    verdict: body.verdict,
    params: body.params,
    since,
    afterSeq: body.afterSeq,
  };
}

/**
 * Event expectations (issue 43, point 2): count the stored events that match a filter, or wait until at least
 * `min` of them are stored (a long poll). A wait wakes at once when this node stores an event, and looks again
 * every 200 ms for the events other nodes on the store commit (EventExpectations).
 */
export function adminEventWaitRoutes(deps: AppDeps) {
  const expectations = new EventExpectations({
    find: (query) => deps.collector.storedEvents(query),
    journal: deps.collector.journal,
    eventLoop: hostEventLoop,
  });
  return new Elysia({ name: "admin-event-wait", prefix: "/admin/events" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .post(
      "/count",
      async ({ body }) => {
        const found = await expectations.count(expectationOf(body), body.limit ?? defaultLimit);
        // A Response, so that data keys such as `__proto__` are written exactly as stored.
        return jsonResponse(200, {
          count: found.count,
          events: found.events.map(eventViewOf),
        }) as unknown as typeof CountView.static;
      },
      {
        ...strictJsonBody(CountBody),
        detail: {
          tags: ["admin", "collect"],
          summary: "Count the stored events that match a filter, and answer the first ones",
        },
        response: { 200: CountView, 400: ErrorBody, 401: ErrorBody },
      },
    )
    .post(
      "/wait",
      async ({ body, request }) => {
        const timeoutMs = body.timeoutMs ?? defaultTimeoutMs;
        const min = body.min ?? 1;
        const expectation = expectationOf(body);
        // As POST /admin/wait: kept open for as long as this wait may take, and back to the usual timeout after.
        const connection = connectionOf(request);
        connection.keepOpenFor(Math.ceil(timeoutMs / 1000) + 5);
        try {
          const report = await expectations.waitFor(expectation, {
            min,
            timeoutMs,
            limit: body.limit ?? defaultLimit,
            abandoned: whenAborted(request.signal),
          });
          return jsonResponse(200, {
            met: report.met,
            min,
            count: report.count,
            waitedMs: Math.round(report.waitedMs),
            events: report.events.map(eventViewOf),
          }) as unknown as typeof WaitView.static;
        } finally {
          connection.keepOpenFor(idleTimeoutSeconds);
        }
      },
      {
        ...strictJsonBody(WaitBody),
        detail: {
          tags: ["admin", "collect"],
          summary: "Wait until at least `min` stored events match a filter (a long poll), and answer them",
          description:
            "Answers 200 as soon as `min` matching events are stored, or when `timeoutMs` has passed, with `met` saying which. Events stored on any node sharing the store count; a reset does not wait for a wait in flight.",
        },
        response: { 200: WaitView, 400: ErrorBody, 401: ErrorBody },
      },
    );
}
