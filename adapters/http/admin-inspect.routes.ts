import { Elysia, t } from "elysia";
import { viewOfJournalEntry } from "../../core/collect/index.ts";
import { managementError } from "../../core/errors/index.ts";
import { firstQueryValues } from "../runtime/query-values.ts";
import type { AppDeps } from "./app-deps.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { EventView, eventViewOf } from "./collect-admin.routes.ts";
import { failWith, jsonResponse } from "./error-mapping.ts";
import { AnswerInteger, answersOf, ErrorBody } from "./openapi-parts.ts";
import { readWholeNumber } from "./query-parameters.ts";

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
const tags = ["admin", "console"];

const Decision = t.Object({
  source: t.String({ description: "override, tapid, visitor_id, first_party or new (DEC-COL-09)" }),
  precedence: t.Array(
    t.Object({
      source: t.String(),
      clauses: t.Array(t.String()),
      value: nullable(t.String({ description: "What the row read (the new row: the ID made), or null" })),
      chosen: t.Boolean(),
      known: t.Boolean({ description: "False where a decision rebuilt from the stored event cannot know the input" }),
    }),
    { description: "The precedence table, highest first, then the new-ID row" },
  ),
  skipTapid: t.Boolean(),
  deleteTapid: t.Boolean(),
  tapidCookie: nullable(
    t.String({ description: "The Set-Cookie header the answer carried (null: none, or not known)" }),
  ),
});

const CollectedRequest = t.Object(
  {
    method: t.Union([t.Literal("GET"), t.Literal("POST")]),
    query: t.String({ description: "The query string as received, without its `?`" }),
    contentType: nullable(t.String({ description: "POST: the Content-Type header as sent" })),
    body: nullable(t.String({ description: "POST: the body as text, inflated when it came gzipped" })),
    cookie: nullable(t.String({ description: "The cookies collection reads (TAPID, utag_main) as sent; no other" })),
    referer: nullable(t.String()),
    userAgent: nullable(t.String()),
  },
  { description: "The request as received: enough to send it again" },
);

const JournalEntry = t.Object({
  id: AnswerInteger({ description: "Increasing on this node; the live feed's event id" }),
  at: t.String({ description: "Virtual-clock time, ISO 8601" }),
  atMs: AnswerInteger(),
  outcome: t.Union([t.Literal("stored"), t.Literal("refused"), t.Literal("bot")]),
  method: t.String(),
  account: nullable(t.String()),
  profile: nullable(t.String()),
  event: nullable(t.String({ description: "svc_event" })),
  traceId: nullable(t.String({ description: "svc_trace_id" })),
  userAgent: nullable(t.String()),
  visitorId: t.Optional(t.String({ description: "stored: the resolved visitor ID" })),
  data: t.Optional(t.Record(t.String(), t.Unknown(), { description: "stored: the stored parameters" })),
  decision: t.Optional(Decision),
  request: t.Optional(CollectedRequest),
  status: t.Optional(AnswerInteger({ description: "refused: the answer's status" })),
  reason: t.Optional(t.String({ description: "refused: the reason's code" })),
  xError: t.Optional(t.String({ description: "refused: the X-Error header" })),
});

const JournalPage = t.Object({
  entries: t.Array(JournalEntry),
  lastId: AnswerInteger({ description: "Pass as `after` to poll for what comes next" }),
});

const Named = t.Object({ id: AnswerInteger(), name: t.String() });
const ProfileView = t.Object({
  firstSeen: t.String(),
  lastSeen: t.String(),
  eventCount: AnswerInteger(),
  visitCount: AnswerInteger(),
  attributes: t.Array(
    t.Object({
      id: AnswerInteger(),
      name: t.String(),
      type: t.String(),
      pii: t.Boolean(),
      value: t.Union([t.Number(), t.String(), t.Boolean()], { description: "Dates in epoch milliseconds" }),
    }),
  ),
  badges: t.Array(Named),
  audiences: t.Array(Named),
  visitorIds: t.Array(t.Object({ id: AnswerInteger(), name: t.String(), value: t.String() })),
});
const Value = nullable(t.Union([t.Number(), t.String(), t.Boolean()]));

const EventExplanation = t.Object({
  event: EventView,
  decision: Decision,
  decisionKnown: t.Union([t.Literal("journal"), t.Literal("stored")]),
  request: nullable(CollectedRequest),
  profileChanges: nullable(
    t.Object({
      visitorId: t.String({ description: "The canonical visitor ID of the event's group" }),
      before: nullable(ProfileView),
      after: ProfileView,
      changes: t.Array(
        t.Object({
          kind: t.Union([
            t.Literal("attribute"),
            t.Literal("badge"),
            t.Literal("audience"),
            t.Literal("visitorIdAttribute"),
            t.Literal("builtin"),
          ]),
          id: t.Union([AnswerInteger(), t.String()]),
          name: t.String(),
          from: Value,
          to: Value,
        }),
      ),
    }),
  ),
});

const InspectedVisitor = t.Object({
  visitorId: t.String({ description: "The canonical visitor ID of the group" }),
  members: t.Array(t.String(), { description: "Every visitor ID stitched into the group, the canonical one first" }),
  profile: ProfileView,
  visits: t.Object({ count: AnswerInteger(), current: t.Object({ startedAt: t.String(), open: t.Boolean() }) }),
  events: t.Array(EventView, { description: "The group's latest 100 events, newest first" }),
  engines: t.Array(
    t.Object({
      id: t.String(),
      name: t.String(),
      enabled: t.Boolean(),
      answer: nullable(t.Record(t.String(), t.Unknown(), { description: "The visitor-data answer (MOM-03)" })),
      status: AnswerInteger({ description: "What the visitor-data API answers: 200, 403 or 404" }),
      note: nullable(t.String({ description: "Why there is no answer" })),
    }),
  ),
});

const maxReplay = 1000;
const defaultJournalLimit = 100;

/**
 * The web console's views of collection (issue 32), behind the admin token: the live feed of this node's
 * collection journal (server-sent events) and the same as JSON for polling, one stored event explained, and a
 * visitor looked up. Thin: the journal is the collection use case's, the rest InspectService's.
 */
export function adminInspectRoutes(deps: AppDeps) {
  const journal = deps.collector.journal;
  return new Elysia({ name: "admin-inspect", prefix: "/admin" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .get(
      "/events/live",
      ({ request }) => {
        const query = firstQueryValues(request);
        // The reader's own reconnection (Last-Event-ID) wins over the query string.
        const header = request.headers.get("last-event-id");
        const after =
          header !== null && header.trim() !== ""
            ? readWholeNumber("Last-Event-ID", header, 0)
            : readWholeNumber("after", query("after"), 0);
        const replay = readWholeNumber("replay", query("replay"), 0, maxReplay);
        const entries = after !== undefined ? journal.entriesAfter(after) : journal.latest(replay ?? 0);
        return deps.eventStreams.open(request, journal, entries);
      },
      {
        query: t.Object({
          after: t.Optional(t.String({ description: "Replay the entries after this id" })),
          replay: t.Optional(
            t.String({ description: `Without after or Last-Event-ID: replay the last n entries (0 to ${maxReplay})` }),
          ),
        }),
        headers: t.Object({
          "last-event-id": t.Optional(t.String({ description: "The last id read, when reconnecting" })),
        }),
        detail: {
          tags,
          summary: "This node's collection outcomes as they happen (server-sent events)",
          description:
            "Each stored, refused or bot-filtered /event request of this node as `id: <id>`, `event: collect`, `data: <entry JSON>`; a `: keep-alive` comment every 15 s. " +
            "On connecting, replays the entries after the Last-Event-ID header (or `after`); with neither, the last `replay` entries (none unless asked, at most 1000). " +
            "Each node has its own journal (the last 1000 outcomes, in memory).",
          responses: answersOf({
            200: {
              description: "A text/event-stream that stays open",
              content: { "text/event-stream": { type: "string" } },
            },
            400: "after, replay or Last-Event-ID is not a whole number in range",
            401: "Without the admin token",
          }),
        },
      },
    )
    .get(
      "/events/journal",
      ({ request }) => {
        const query = firstQueryValues(request);
        const after = readWholeNumber("after", query("after"), 0);
        const limit = readWholeNumber("limit", query("limit"), 1, maxReplay) ?? defaultJournalLimit;
        const entries = after === undefined ? journal.latest(limit) : journal.entriesAfter(after, limit);
        // A Response, so that data keys such as `__proto__` are written exactly as stored.
        return jsonResponse(200, {
          entries: entries.map(viewOfJournalEntry),
          lastId: entries.at(-1)?.id ?? journal.lastId,
        }) as unknown as typeof JournalPage.static;
      },
      {
        query: t.Object({
          after: t.Optional(t.String({ description: "The entries after this id, oldest first (default: the latest)" })),
          limit: t.Optional(
            t.String({
              description: `How many: a whole number from 1 to ${maxReplay} (default ${defaultJournalLimit})`,
            }),
          ),
        }),
        detail: { tags, summary: "This node's latest collection outcomes, for clients that poll" },
        response: { 200: JournalPage, 400: ErrorBody, 401: ErrorBody },
      },
    )
    .get(
      "/events/:seq",
      async ({ params }) => {
        const seq = readWholeNumber("seq", params.seq, 1);
        if (seq === undefined)
          failWith(managementError("invalidParameter", { parameter: "seq", problem: "is required" }));
        const explained = await deps.inspect.explainEvent(seq);
        if (!explained.ok) failWith(explained.error);
        return jsonResponse(200, {
          ...explained.value,
          event: eventViewOf(explained.value.event),
        }) as unknown as typeof EventExplanation.static;
      },
      {
        params: t.Object({ seq: t.String({ description: "The event's sequence number" }) }),
        detail: {
          tags,
          summary: "One stored event explained: its visitor ID decision and what it changed in the visitor's profile",
        },
        response: { 200: EventExplanation, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    )
    .get(
      "/accounts/:account/profiles/:profile/visitors",
      async ({ params, request }) => {
        const query = firstQueryValues(request);
        const found = await deps.inspect.lookupVisitor({
          account: params.account,
          profile: params.profile,
          visitorId: query("visitorId"),
          attribute: query("attribute"),
          value: query("value"),
        });
        if (!found.ok) failWith(found.error);
        return jsonResponse(200, {
          ...found.value,
          events: found.value.events.map(eventViewOf),
        }) as unknown as typeof InspectedVisitor.static;
      },
      {
        params: t.Object({ account: t.String(), profile: t.String() }),
        query: t.Object({
          visitorId: t.Optional(t.String({ description: "Any visitor ID of the visitor's group" })),
          attribute: t.Optional(
            t.String({ description: "A visitor ID attribute: its id (5120) or name (email_address)" }),
          ),
          value: t.Optional(t.String({ description: "With attribute: the value" })),
        }),
        detail: {
          tags,
          summary:
            "A visitor: its group, profile, visits, latest events and what each engine answers of it (the Referer aside)",
        },
        response: { 200: InspectedVisitor, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    );
}
