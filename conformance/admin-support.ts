/**
 * The admin calls scenarios share. POST /admin/wait is named by the interface's decisions (DEC-OPS-04; a
 * scenario using it declares needs: ["admin"]). The test clock's routes are a capability (test-clock, specified
 * in INTERPRETING.md): DEC-OPS-02 asks for a clock the admin API can read, set and advance but names no route, so
 * a scenario moving or reading it declares needs: ["test-clock"] and is skipped against a target without them.
 */
import { about, expectStatus, fail, jsonObject } from "../harness/expect.ts";
import type { ScenarioContext } from "../harness/scenario.ts";

/** DEC-OPS-04, DEC-PRO-03: returns once all background work accepted before the call is done, its delays included. */
export async function waitForBackgroundWork(ctx: ScenarioContext): Promise<void> {
  expectStatus(await ctx.base.post("/admin/wait", { headers: ctx.adminHeaders() }), 200);
}

/**
 * The test clock's form of the wait (capability test-clock): `POST /admin/wait {"scheduled": false}` runs only the work due on the
 * virtual clock now, leaving what is scheduled later, so that a scenario can see a state before its delay
 * has passed. A scenario using it declares needs: ["test-clock"], as for moving the clock.
 */
export async function runDueWork(ctx: ScenarioContext): Promise<void> {
  expectStatus(await ctx.base.post("/admin/wait", { headers: ctx.clockHeaders(), json: { scheduled: false } }), 200);
}

/** The test clock: `POST /admin/clock/advance {"by": "90s"}`. */
export async function advanceClock(ctx: ScenarioContext, by: string): Promise<void> {
  expectStatus(await ctx.base.post("/admin/clock/advance", { headers: ctx.clockHeaders(), json: { by } }), 200);
}

/** The test clock: `GET /admin/clock`, its time (nowMs) and the timing preset it names (timing), if any. */
export async function readClock(
  ctx: ScenarioContext,
): Promise<{ readonly nowMs: number; readonly timing: string | undefined }> {
  const answer = await ctx.base.get("/admin/clock", { headers: ctx.clockHeaders() });
  expectStatus(answer, 200);
  const body = jsonObject(answer);
  if (typeof body.nowMs !== "number" || !Number.isFinite(body.nowMs))
    fail(about(answer, "expected {nowMs: number, ...}"));
  return { nowMs: body.nowMs, timing: typeof body.timing === "string" ? body.timing : undefined };
}

/** Whether the timing preset is one of the short ones (DEC-OPS-02: `instant`, `fast`), whose delays are seconds. */
export function isShortTiming(timing: string | undefined): boolean {
  return timing === "instant" || timing === "fast";
}
