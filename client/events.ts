/**
 * The stored events' helpers (issue 43), as Snowplow Micro's: find, count, and wait for the events that match a
 * filter, with the admin token. Each throws SvcHubClientError when svc-hub refuses the call.
 *
 *   await waitForEvents(hub, { event: "purchase", params: { sku: "A1" } }, { min: 2 });
 */
import { type AdminClient, answered } from "./admin-call.ts";
import type { paths } from "./openapi.types.ts";

type WaitBody = paths["/admin/events/wait"]["post"]["requestBody"]["content"]["application/json"];
type WaitAnswer = paths["/admin/events/wait"]["post"]["responses"][200]["content"]["application/json"];
type VerdictQuery = NonNullable<paths["/admin/events/verdicts"]["get"]["parameters"]["query"]>;
/** The tracking plan's verdicts of the matching events (GET /admin/events/verdicts), by event name and in all. */
export type VerdictCounts = paths["/admin/events/verdicts"]["get"]["responses"][200]["content"]["application/json"];
/** Which events countVerdicts and expectValidEvents look at: account, profile, event, from and to. */
export type VerdictFilter = VerdictQuery;

/**
 * Which stored events: every field optional, all given must match (account, profile, visitor, event, traceId,
 * parameter values compared as text, received `since`, `afterSeq`).
 */
export type EventFilter = Omit<WaitBody, "min" | "timeoutMs" | "limit">;
/** A stored event as the admin API shows it. */
export type StoredEventView = WaitAnswer["events"][number];

export interface EventWaitOptions {
  /** How many matching events to wait for (default 1). */
  readonly min?: number;
  /** Real milliseconds to wait at most (default 5000). */
  readonly timeoutMs?: number;
  /** How many of the matching events to answer (default 100). */
  readonly limit?: number;
}

/** A wait for events that timed out: what was waited for, and what was found, in its message. */
export class EventWaitTimeoutError extends Error {
  override readonly name = "EventWaitTimeoutError";
  constructor(
    readonly filter: EventFilter,
    readonly min: number,
    readonly timeoutMs: number,
    readonly found: readonly StoredEventView[],
    readonly count: number,
  ) {
    const shown = found
      .slice(0, 5)
      .map((event) => `\n  seq ${event.seq} ${event.event ?? "(no svc_event)"} ${JSON.stringify(event.data)}`)
      .join("");
    super(
      `waited ${timeoutMs} ms for ${min} event(s) matching ${JSON.stringify(filter)}; ${count} stored${count > 0 ? ":" : ""}${shown}`,
    );
  }
}

/** The matching events stored now (POST /admin/events/count), oldest first, at most `limit` (default 100). */
export async function findEvents(hub: AdminClient, filter: EventFilter = {}, limit = 100): Promise<StoredEventView[]> {
  return (await countedEvents(hub, filter, limit)).events;
}

/** How many matching events are stored now, whatever their verdict (countVerdicts counts good and bad). */
export async function countEvents(hub: AdminClient, filter: EventFilter = {}): Promise<number> {
  return Number((await countedEvents(hub, filter, 1)).count);
}

/**
 * Waits until at least `min` matching events are stored (POST /admin/events/wait, a long poll); answers them, or
 * throws EventWaitTimeoutError saying what it waited for and what it found.
 */
export async function waitForEvents(
  hub: AdminClient,
  filter: EventFilter = {},
  options: EventWaitOptions = {},
): Promise<StoredEventView[]> {
  const min = options.min ?? 1;
  const timeoutMs = options.timeoutMs ?? 5000;
  const data = answered(
    "POST /admin/events/wait",
    await hub.admin.POST("/admin/events/wait", {
      body: { ...filter, min, timeoutMs, limit: options.limit ?? 100 },
    }),
  );
  if (!data.met) throw new EventWaitTimeoutError(filter, min, timeoutMs, data.events, Number(data.count));
  return data.events;
}

async function countedEvents(hub: AdminClient, filter: EventFilter, limit: number) {
  return answered(
    "POST /admin/events/count",
    await hub.admin.POST("/admin/events/count", { body: { ...filter, limit } }),
  );
}

/**
 * How many of the matching events the tracking plan found valid, invalid, or had no schema for (GET
 * /admin/events/verdicts), by event name and in all: as Snowplow Micro's good and bad counts.
 */
export async function countVerdicts(hub: AdminClient, filter: VerdictFilter = {}): Promise<VerdictCounts> {
  return answered(
    "GET /admin/events/verdicts",
    await hub.admin.GET("/admin/events/verdicts", { params: { query: filter } }),
  );
}

/** Events the tracking plan found invalid, with each violation, in its message. */
export class TrackingPlanViolationError extends Error {
  override readonly name = "TrackingPlanViolationError";
  constructor(
    readonly filter: VerdictFilter,
    readonly invalid: readonly StoredEventView[],
    readonly count: number,
  ) {
    const shown = invalid
      .slice(0, 5)
      .map(
        (event) =>
          `\n  seq ${event.seq} ${event.event ?? "(no svc_event)"}` +
          (event.violations ?? [])
            .map(
              (violation) =>
                `\n    ${violation.parameter || "(the event)"}: ${violation.message} (${violation.rule}` +
                `${"value" in violation ? `, was ${JSON.stringify(violation.value)}` : ""})`,
            )
            .join(""),
      )
      .join("");
    super(`${count} event(s) matching ${JSON.stringify(filter)} break the tracking plan:${shown}`);
  }
}

/**
 * Throws TrackingPlanViolationError, listing the invalid events and their violations, when any matching event
 * breaks the tracking plan; else answers the verdicts' counts. Call it after the events are stored (waitForWork,
 * or waitForEvents).
 */
export async function expectValidEvents(hub: AdminClient, filter: VerdictFilter = {}): Promise<VerdictCounts> {
  const counts = await countVerdicts(hub, filter);
  if (Number(counts.total.invalid) === 0) return counts;
  const data = answered(
    "GET /admin/events",
    await hub.admin.GET("/admin/events", {
      params: { query: { ...filter, verdict: "invalid", limit: "5" } },
    }),
  );
  throw new TrackingPlanViolationError(filter, data.events, Number(counts.total.invalid));
}
