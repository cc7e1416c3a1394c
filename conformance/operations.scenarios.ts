import type { HttpAnswer } from "../harness/client.ts";
import {
  expectEqual,
  expectErrorBody,
  expectStatus,
  expectTrue,
  isPlainObject,
  isString,
  jsonObject,
} from "../harness/expect.ts";
import { defineScenarios, type ScenarioContext } from "../harness/scenario.ts";
import { loginV1 } from "../harness/sessions.ts";
import { waitForBackgroundWork } from "./admin-support.ts";
import { collect } from "./collect-support.ts";
import { formatDate } from "./files.scenarios.ts";

interface ClockView {
  now: string;
  nowMs: number;
  offsetMs: number;
}

/** DEC-OPS-02: the clock answer, `{now, nowMs, offsetMs, ...}`; another shape fails, showing it. */
function clockView(answer: HttpAnswer): ClockView {
  expectStatus(answer, 200);
  const body = jsonObject(answer);
  expectTrue(
    isString(body.now) && Number.isFinite(body.nowMs) && Number.isFinite(body.offsetMs),
    "expected {now: string, nowMs: number, offsetMs: number}",
    answer,
  );
  return body as unknown as ClockView;
}

/**
 * Sends `count` events of one new visitor to the fixtures' account and profile, one after another: work for
 * the profiles (DEC-PRO-03) that is still being applied when the last is answered.
 */
async function sendEvents(ctx: ScenarioContext, visitorId: string, count: number): Promise<void> {
  const { account, profile } = ctx.fixtures;
  for (let index = 0; index < count; index += 1) {
    expectStatus(
      await collect(ctx, "POST", "/event", {
        json: { svc_account: account, svc_profile: profile, svc_visitor_id: visitorId, svc_event: "view" },
      }),
      200,
    );
  }
}

/** A file of the fixtures' file definition with `rows` rows, each a visitor of its own (DEC-FIL-01, DEC-FIL-04). */
function makeImportableFile(ctx: ScenarioContext, rows: number): { name: string; text: string } {
  const { prefix, visitorIdColumn, amountColumn, dateColumn, dateFormat } = ctx.fixtures.fileDefinition;
  const id = ctx.uniqueId("wait").replace(/_/g, "-");
  const at = formatDate(Date.UTC(2024, 0, 31, 9, 30), dateFormat);
  const lines = Array.from({ length: rows }, (_, row) => `${id}-${row}@example.com,12.50,${at}`);
  return {
    name: `${prefix}_${id}.csv`,
    text: `${[`${visitorIdColumn},${amountColumn},${dateColumn}`, ...lines].join("\n")}\n`,
  };
}

/** DEC-OPS-*: health, readiness, the virtual clock (the test-clock capability's routes) and the wait call of DEC-OPS-04. */
export const operationsScenarios = defineScenarios("operations", [
  {
    title: "[DEC-OPS-01] GET /healthz answers 200 while the process is up",
    async run({ base }) {
      const answer = await base.get("/healthz");
      expectStatus(answer, 200);
      expectEqual(jsonObject(answer).status, "ok", "status", answer);
    },
  },
  {
    title: "[DEC-OPS-01] GET /readyz answers 200 when the store is reachable",
    async run({ base }) {
      const answer = await base.get("/readyz");
      expectStatus(answer, 200);
      expectEqual(jsonObject(answer).status, "ready", "status", answer);
    },
  },
  {
    title: "[DEC-OPS-01, DEC-GEN-02] the admin API refuses a call without the admin bearer token with 401 1401",
    needs: ["admin"],
    async run({ base }) {
      expectErrorBody(await base.post("/admin/wait"), 401, 1401, "Authentication Failed");
      expectErrorBody(
        await base.post("/admin/wait", { headers: { authorization: "Bearer not-the-token" } }),
        401,
        1401,
        "Authentication Failed",
      );
    },
  },
  {
    title: "[DEC-OPS-02] the virtual clock reads the time and moves forward when advanced or set",
    needs: ["test-clock"],
    async run({ base, clockHeaders }) {
      const read = await base.get("/admin/clock", { headers: clockHeaders() });
      const before = clockView(read);
      expectEqual(new Date(before.now).getTime(), before.nowMs, "now and nowMs are the same instant", read);

      const advanced = await base.post("/admin/clock/advance", { headers: clockHeaders(), json: { by: "90s" } });
      const after = clockView(advanced);
      expectTrue(
        after.nowMs - before.nowMs >= 90_000,
        `advancing by 90s moved the clock by ${after.nowMs - before.nowMs} ms`,
        advanced,
      );
      expectTrue(
        after.offsetMs - before.offsetMs === 90_000,
        `the offset grew by ${after.offsetMs - before.offsetMs} ms, not 90000`,
        advanced,
      );

      const target = after.nowMs + 60_000;
      const sentAt = performance.now();
      const set = await base.put("/admin/clock", {
        headers: clockHeaders(),
        json: { now: new Date(target).toISOString() },
      });
      // The clock flows at the real pace once set, and it was set and read while the request was on its way: it
      // reads at most that round trip past the time given (and a few ms of the clocks' granularity), however slow.
      const roundTripMs = Math.ceil(performance.now() - sentAt);
      const setView = clockView(set);
      expectTrue(
        setView.nowMs >= target && setView.nowMs - target <= roundTripMs + 5,
        `set to ${target}, the clock reads ${setView.nowMs}: ${setView.nowMs - target} ms past it, after a round trip of ${roundTripMs} ms`,
        set,
      );
    },
  },
  {
    title: "[DEC-OPS-02, DEC-GEN-01] a bad clock change is 400 1400 naming the bad field",
    needs: ["test-clock"],
    async run({ base, clockHeaders }) {
      const badDuration = expectErrorBody(
        await base.post("/admin/clock/advance", { headers: clockHeaders(), json: { by: "-3 days" } }),
        400,
        1400,
      );
      expectTrue(
        badDuration.message.includes("by"),
        `POST /admin/clock/advance {"by":"-3 days"}: the message should name "by": ${badDuration.message}`,
      );
      const badTime = expectErrorBody(
        await base.put("/admin/clock", { headers: clockHeaders(), json: { now: "yesterday-ish" } }),
        400,
        1400,
      );
      expectTrue(
        badTime.message.includes("now"),
        `PUT /admin/clock {"now":"yesterday-ish"}: the message should name "now": ${badTime.message}`,
      );
    },
  },
  {
    title:
      "[DEC-OPS-04, DEC-PRO-03] once POST /admin/wait has returned, the events accepted before it are applied: the visitor's data holds them at once",
    needs: ["admin"],
    async run(ctx) {
      const visitor = ctx.uniqueId("wait-visitor");
      const count = 25;
      await sendEvents(ctx, visitor, count);
      await waitForBackgroundWork(ctx);
      // Asked once, right away: a wait that returns before the work is done shows here, where polling would hide it.
      const { account, profile, engines, attributes } = ctx.fixtures;
      const answer = await ctx.moments.get(
        `/personalization/accounts/${account}/profiles/${profile}/engines/${engines.names}/visitors/${visitor}`,
        {
          headers: { referer: "https://shop.example.com/wait", origin: "https://shop.example.com" },
        },
      );
      expectStatus(answer, 200);
      const metrics = jsonObject(answer).metrics;
      expectTrue(isPlainObject(metrics), "expected {metrics: {...}, ...}", answer);
      expectEqual(
        metrics[attributes.eventCount.name],
        count,
        `${attributes.eventCount.name} right after the wait`,
        answer,
      );
    },
  },
  {
    title:
      "[DEC-OPS-04, DEC-FIL-02] once POST /admin/wait has returned, a file uploaded before it is imported: its status reads PROCESSED at once",
    needs: ["admin"],
    async run(ctx) {
      const { account, profile } = ctx.fixtures;
      const file = makeImportableFile(ctx, 400);
      // Logged in first: the status is read right after the wait, with nothing in between.
      const session = await loginV1(ctx);
      const uploaded = await ctx.base.post(
        `/admin/accounts/${encodeURIComponent(account)}/profiles/${encodeURIComponent(profile)}/files/${encodeURIComponent(file.name)}`,
        {
          headers: { ...ctx.adminHeaders(), "content-type": "text/csv" },
          body: file.text,
        },
      );
      expectStatus(uploaded, 202);
      await waitForBackgroundWork(ctx);
      // Asked once, right away, as above.
      const answer = await ctx.base.get(
        `/v1/omnichannel/accounts/${encodeURIComponent(account)}/profiles/${encodeURIComponent(profile)}/files/${encodeURIComponent(file.name)}`,
        {
          headers: session.headers,
          query: session.query,
        },
      );
      expectStatus(answer, 200);
      const status = jsonObject(answer).status;
      expectTrue(Array.isArray(status), "expected {status: [...], ...}", answer);
      const last = status.at(-1);
      expectEqual(
        isPlainObject(last) ? last.state : last,
        "PROCESSED",
        "the file's last state right after the wait",
        answer,
      );
    },
  },
]);
