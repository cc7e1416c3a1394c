import type { SvcHubClient } from "./index.ts";
import { SvcHubClientError } from "./index.ts";
import type { paths } from "./openapi.types.ts";

type WaitBody = paths["/admin/events/wait"]["post"]["requestBody"]["content"]["application/json"];
type WaitAnswer = paths["/admin/events/wait"]["post"]["responses"][200]["content"]["application/json"];

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

/**
 * The stored events (POST /admin/events/count and /admin/events/wait) with the admin token: find, count, and
 * wait for those matching a filter. Calls that are refused throw SvcHubClientError.
 */
export interface SvcHubEvents {
  /** The matching events stored now, oldest first, at most `limit` (default 100). */
  find(filter?: EventFilter, limit?: number): Promise<StoredEventView[]>;
  /** How many matching events are stored now. */
  count(filter?: EventFilter): Promise<number>;
  /** Waits until at least `min` matching events are stored; answers them, or throws EventWaitTimeoutError. */
  waitFor(filter?: EventFilter, options?: EventWaitOptions): Promise<StoredEventView[]>;
}

/** The event helpers of a client made with an admin token. */
export function eventsOf(hub: Pick<SvcHubClient, "admin">): SvcHubEvents {
  const counted = async (filter: EventFilter, limit: number) => {
    const { data, error, response } = await hub.admin.POST("/admin/events/count", { body: { ...filter, limit } });
    if (data === undefined) throw new SvcHubClientError("POST /admin/events/count", response.status, error);
    return data;
  };
  return {
    async find(filter = {}, limit = 100) {
      return (await counted(filter, limit)).events;
    },
    async count(filter = {}) {
      return Number((await counted(filter, 1)).count);
    },
    async waitFor(filter = {}, options = {}) {
      const min = options.min ?? 1;
      const timeoutMs = options.timeoutMs ?? 5000;
      const { data, error, response } = await hub.admin.POST("/admin/events/wait", {
        body: { ...filter, min, timeoutMs, limit: options.limit ?? 100 },
      });
      if (data === undefined) throw new SvcHubClientError("POST /admin/events/wait", response.status, error);
      if (!data.met) throw new EventWaitTimeoutError(filter, min, timeoutMs, data.events, Number(data.count));
      return data.events;
    },
  };
}
