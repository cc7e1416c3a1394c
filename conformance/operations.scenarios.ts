import type { HttpAnswer } from "../harness/client.ts";
import { expectEqual, expectErrorBody, expectStatus, expectTrue, isString, jsonObject } from "../harness/expect.ts";
import { defineScenarios } from "../harness/scenario.ts";

interface ClockView {
  now: string;
  nowMs: number;
  offsetMs: number;
}

/** DEC-OPS-02: the clock answer, `{now, nowMs, offsetMs, ...}`; another shape fails, showing it. */
function clockView(answer: HttpAnswer): ClockView {
  expectStatus(answer, 200);
  const body = jsonObject(answer);
  expectTrue(isString(body.now) && Number.isFinite(body.nowMs) && Number.isFinite(body.offsetMs), "expected {now: string, nowMs: number, offsetMs: number}", answer);
  return body as unknown as ClockView;
}

/** DEC-OPS-*: health, readiness, the virtual clock and the wait call of the admin API. */
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
      expectErrorBody(await base.get("/admin/clock"), 401, 1401, "Authentication Failed");
      expectErrorBody(await base.get("/admin/clock", { headers: { authorization: "Bearer not-the-token" } }), 401, 1401, "Authentication Failed");
    },
  },
  {
    title: "[DEC-OPS-02] the virtual clock reads the time and moves forward when advanced or set",
    needs: ["admin"],
    async run({ base, adminHeaders }) {
      const read = await base.get("/admin/clock", { headers: adminHeaders() });
      const before = clockView(read);
      expectEqual(new Date(before.now).getTime(), before.nowMs, "now and nowMs are the same instant", read);

      const advanced = await base.post("/admin/clock/advance", { headers: adminHeaders(), json: { by: "90s" } });
      const after = clockView(advanced);
      expectTrue(after.nowMs - before.nowMs >= 90_000, `advancing by 90s moved the clock by ${after.nowMs - before.nowMs} ms`, advanced);
      expectTrue(after.offsetMs - before.offsetMs === 90_000, `the offset grew by ${after.offsetMs - before.offsetMs} ms, not 90000`, advanced);

      const target = after.nowMs + 60_000;
      const set = await base.put("/admin/clock", { headers: adminHeaders(), json: { now: new Date(target).toISOString() } });
      const setView = clockView(set);
      expectTrue(setView.nowMs >= target && setView.nowMs - target < 5_000, `set to ${target}, the clock reads ${setView.nowMs}`, set);
    },
  },
  {
    title: "[DEC-OPS-02, DEC-GEN-01] a bad clock change is 400 1400 naming the bad field",
    needs: ["admin"],
    async run({ base, adminHeaders }) {
      const badDuration = expectErrorBody(await base.post("/admin/clock/advance", { headers: adminHeaders(), json: { by: "-3 days" } }), 400, 1400);
      expectTrue(badDuration.message.includes("by"), `POST /admin/clock/advance {"by":"-3 days"}: the message should name "by": ${badDuration.message}`);
      const badTime = expectErrorBody(await base.put("/admin/clock", { headers: adminHeaders(), json: { now: "yesterday-ish" } }), 400, 1400);
      expectTrue(badTime.message.includes("now"), `PUT /admin/clock {"now":"yesterday-ish"}: the message should name "now": ${badTime.message}`);
    },
  },
  {
    title: "[DEC-OPS-04, DEC-PRO-03] POST /admin/wait returns once the background work accepted before it is done",
    needs: ["admin"],
    async run({ base, adminHeaders }) {
      const answer = await base.post("/admin/wait", { headers: adminHeaders() });
      expectStatus(answer, 200);
      expectEqual(jsonObject(answer).complete, true, "complete", answer);
    },
  },
]);
