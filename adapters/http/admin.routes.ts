import { Elysia, t } from "elysia";
import { drainAdvancingClock, parseDuration } from "../../core/clock/index.ts";
import { managementError } from "../../core/errors/index.ts";
import type { DrainReport } from "../../core/ports/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { connectionOf, idleTimeoutSeconds } from "./connection.ts";
import { failWith } from "./error-mapping.ts";
import { AnswerInteger, ErrorBody, requestBodyOf } from "./openapi-parts.ts";
import { readOptionalJsonObject, strictJsonBody } from "./strict-body.ts";

const ClockView = t.Object({
  now: t.String({ description: "Virtual time, ISO 8601 UTC" }),
  nowMs: AnswerInteger({ description: "Virtual time, epoch milliseconds" }),
  offsetMs: AnswerInteger({ description: "Virtual minus real time" }),
  timing: t.String({ description: "Timing preset: instant, fast or realistic" }),
});
const TimeInput = t.Union([t.String(), t.Number()], { description: "ISO 8601 time, or epoch milliseconds" });
const DurationInput = t.Union([t.String(), t.Number()], {
  description: "Milliseconds, or a duration such as 90s, 10m, 30d, 1d12h",
});
const Count = AnswerInteger({ minimum: 0 });
const ResetView = t.Object({
  erased: t.Object(
    {
      accounts: Count,
      profiles: Count,
      users: Count,
      apiKeys: Count,
      sessions: Count,
      lockouts: Count,
      events: Count,
      visitorProfiles: Count,
      dataLayers: Count,
      revisions: Count,
      privacyTransactions: Count,
      fileImports: Count,
      receivedFiles: Count,
      droppedFiles: Count,
    },
    { description: "How many records of each kind were erased, and files removed from the data directory" },
  ),
  configuration: t.Object(
    { accounts: Count, profiles: Count, users: Count, apiKeys: Count, revisions: Count },
    {
      description:
        "What the configuration put back: accounts, profiles, users and API keys created, revisions published",
    },
  ),
});

/** A reset takes no body, or `{}`. */
const ResetBody = t.Object({});

/** The body of a reset: none (or only white space), or `{}`; anything else is 400 1400 naming it. */
async function checkResetBody(request: Request): Promise<void> {
  await readOptionalJsonObject(request, ResetBody);
}

function readTime(input: string | number): number | null {
  if (typeof input === "number") return Number.isFinite(input) ? input : null;
  const trimmed = input.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const parsed = Date.parse(trimmed);
  return Number.isNaN(parsed) ? null : parsed;
}

const maxWaitMs = 600_000;
const WaitBody = t.Object({
  scheduled: t.Optional(
    t.Boolean({
      description:
        "Also wait (in real time) for work scheduled later on the virtual clock (default true); false runs only the work due now",
    }),
  ),
  timeoutMs: t.Optional(
    t.Integer({
      minimum: 0,
      maximum: maxWaitMs,
      description: `Milliseconds to wait at most, a whole number from 0 to ${maxWaitMs} (default 30000)`,
    }),
  ),
  advanceClock: t.Optional(
    t.Union([t.String(), t.Number()], {
      description:
        "Instead of waiting in real time for work scheduled later, move the virtual clock to each item's time, by this much at most in all: milliseconds, or a duration such as 10m, 3d",
    }),
  ),
});

interface WaitOptions {
  readonly scheduled: boolean;
  readonly timeoutMs: number;
  /** How far the wait may move the virtual clock (`advanceClock`), or null to wait in real time. */
  readonly advanceUpToMs: number | null;
}

/** The wait's options: no body, `{}`, or the fields of WaitBody; anything else is 400 1400 naming it. */
async function waitOptionsOf(request: Request): Promise<WaitOptions> {
  const body = await readOptionalJsonObject(request, WaitBody);
  const refuse = (parameter: string, problem: string): never =>
    failWith(managementError("invalidParameter", { parameter, problem }));
  const scheduled = body?.scheduled ?? true;
  if (typeof scheduled !== "boolean") refuse("scheduled", "must be true or false");
  const timeoutMs = body?.timeoutMs ?? 30_000;
  if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > maxWaitMs) {
    refuse("timeoutMs", `must be a whole number of milliseconds from 0 to ${maxWaitMs}`);
  }
  let advanceUpToMs: number | null = null;
  if (body?.advanceClock !== undefined) {
    const duration =
      typeof body.advanceClock === "string" || typeof body.advanceClock === "number"
        ? parseDuration(body.advanceClock)
        : null;
    if (!duration?.ok) return refuse("advanceClock", "must be a non-negative duration such as 1500, 90s, 10m, 3d");
    // Moving the clock is how scheduled work gets run: with scheduled work left out there is nothing to move it for.
    if (scheduled === false)
      refuse("scheduled", "cannot be false with advanceClock, which runs the work scheduled later");
    advanceUpToMs = duration.value;
  }
  return { scheduled: scheduled as boolean, timeoutMs: timeoutMs as number, advanceUpToMs };
}

/**
 * The admin API (DEC-OPS-01, DEC-OPS-02, DEC-OPS-04): the virtual clock, the wait/drain call, the reset and the tenants
 * loaded, behind the admin bearer token. Not part of the specified interface; tools and tests use it.
 */
export function adminRoutes(deps: AppDeps) {
  const clockView = () => {
    const nowMs = deps.clock.now();
    return { now: new Date(nowMs).toISOString(), nowMs, offsetMs: deps.clock.offsetMs(), timing: deps.timing.name };
  };

  /** The wait itself, once its options are read and its connection kept open. */
  async function waitFor(scheduled: boolean, timeoutMs: number, advanceUpToMs: number | null) {
    // DEC-OPS-04: all the work accepted before the call, also the work scheduled later on the virtual
    // clock (a data layer change's delay, a deletion's) as it falls due within the timeout; what falls due
    // after it (realistic timing: minutes to days) is left, `complete: false` with its `nextDueAt`.
    // `scheduled: false` runs only what is due now; `advanceClock` moves the clock to the work instead.
    const viewOf = (report: DrainReport) => {
      if (report.timedOut) failWith(managementError("waitTimedOut", { timeout_ms: timeoutMs }));
      return {
        complete: report.complete,
        processed: report.processed,
        nextDueAt: report.nextDueAt === null ? null : new Date(report.nextDueAt).toISOString(),
      };
    };
    if (advanceUpToMs === null) return viewOf(await deps.scheduler.drain({ includeScheduled: scheduled, timeoutMs }));
    const report = await drainAdvancingClock(deps.scheduler, deps.clock, {
      upToMs: advanceUpToMs,
      timeoutMs,
      realNow: Date.now,
    });
    if (report.advancedMs > 0)
      deps.logger.info("virtual clock advanced by a wait", {
        byMs: report.advancedMs,
        now: new Date(deps.clock.now()).toISOString(),
      });
    return { ...viewOf(report), advancedMs: report.advancedMs };
  }

  return new Elysia({ name: "admin", prefix: "/admin" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .get(
      "/clock",
      async () => {
        await deps.clock.refresh();
        return clockView();
      },
      {
        detail: { tags: ["admin"], summary: "Read the virtual clock" },
        response: { 200: ClockView, 401: ErrorBody },
      },
    )
    .put(
      "/clock",
      async ({ body }) => {
        const target = readTime(body.now);
        // Time only moves forward through the API: what was stored with a later time (a revision's id, a
        // status, a lockout) would otherwise be in the future, and the latest revision no longer the latest.
        await deps.clock.refresh();
        if (target !== null && target < deps.clock.now()) {
          failWith(
            managementError("invalidParameter", {
              parameter: "now",
              problem: `is before the virtual clock's time (${new Date(deps.clock.now()).toISOString()}); it only moves forward`,
            }),
          );
        }
        const changed = target === null ? null : await deps.clock.set(target);
        if (!changed?.ok) {
          failWith(
            managementError("invalidParameter", {
              parameter: "now",
              problem: "must be an ISO 8601 time or epoch milliseconds within the Date range",
            }),
          );
        }
        deps.logger.info("virtual clock set", { now: new Date(changed.value).toISOString() });
        return clockView();
      },
      {
        ...strictJsonBody(t.Object({ now: TimeInput })),
        detail: { tags: ["admin"], summary: "Set the virtual clock" },
        response: { 200: ClockView, 400: ErrorBody, 401: ErrorBody },
      },
    )
    .post(
      "/clock/advance",
      async ({ body }) => {
        const duration = parseDuration(body.by);
        const changed = duration.ok ? await deps.clock.advance(duration.value) : null;
        if (!changed?.ok) {
          failWith(
            managementError("invalidParameter", {
              parameter: "by",
              problem: "must be a non-negative duration such as 1500, 90s, 10m, 30d",
            }),
          );
        }
        deps.logger.info("virtual clock advanced", { by: body.by, now: new Date(changed.value).toISOString() });
        return clockView();
      },
      {
        ...strictJsonBody(t.Object({ by: DurationInput })),
        detail: { tags: ["admin"], summary: "Move the virtual clock forward" },
        response: { 200: ClockView, 400: ErrorBody, 401: ErrorBody },
      },
    )
    .post(
      "/wait",
      async ({ request }) => {
        const { scheduled, timeoutMs, advanceUpToMs } = await waitOptionsOf(request);
        // The server closes a connection idle for 10 s, also one waiting for its answer: a wait of up to
        // timeoutMs would get an empty reply. Only now, the admin token checked (app.ts) and the body read, is
        // this connection kept open, for as long as this wait may take, and back to the usual timeout after.
        const connection = connectionOf(request);
        connection.keepOpenFor(Math.ceil(timeoutMs / 1000) + 5);
        try {
          return await waitFor(scheduled, timeoutMs, advanceUpToMs);
        } finally {
          connection.keepOpenFor(idleTimeoutSeconds);
        }
      },
      {
        // Read by waitOptionsOf: Elysia checks nothing against a body schema that is optional at its root.
        parse: "none",
        detail: {
          tags: ["admin"],
          summary: "Wait until the background work accepted so far is done",
          requestBody: requestBodyOf({ "application/json": WaitBody }, "None, or the options of the wait", false),
        },
        response: {
          200: t.Object({
            complete: t.Boolean(),
            processed: t.Record(t.String(), AnswerInteger()),
            nextDueAt: t.Union([t.String(), t.Null()]),
            advancedMs: t.Optional(
              AnswerInteger({ description: "With advanceClock: how far the wait moved the virtual clock" }),
            ),
          }),
          400: ErrorBody,
          401: ErrorBody,
          504: ErrorBody,
        },
      },
    )
    .post(
      "/reset",
      async ({ request }) => {
        // svc-hub's own: the isolation of test cases without a restart (docs/testing-with-svc-hub.md, Resetting between test cases). The body is
        // checked before anything is erased.
        await checkResetBody(request);
        return deps.resets.reset();
      },
      {
        // Read by checkResetBody: Elysia checks nothing against a body schema that is optional at its root.
        parse: "none",
        detail: {
          tags: ["admin"],
          summary: "Reset the service to its configuration, as a fresh start on an empty store (the admin token stays)",
          description:
            "Erases every event, visitor profile, data layer, file import (and its files), privacy transaction, revision, session, lockout, rate-limit window and background work item; users and API keys return to the configuration's; the virtual clock to real time; tokens issued before stop working. The configuration is then applied again.",
          requestBody: requestBodyOf({ "application/json": ResetBody }, "None, or {}", false),
        },
        response: { 200: ResetView, 400: ErrorBody, 401: ErrorBody, 503: ErrorBody },
      },
    )
    .get(
      "/accounts",
      async () => {
        return deps.users.listTenants();
      },
      {
        detail: { tags: ["admin"], summary: "List the accounts and their profiles" },
        response: { 200: t.Array(t.Object({ name: t.String(), profiles: t.Array(t.String()) })), 401: ErrorBody },
      },
    );
}
