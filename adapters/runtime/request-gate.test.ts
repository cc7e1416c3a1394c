import { describe, expect, it } from "bun:test";
import { ServiceBusyError } from "../../core/errors/index.ts";
import { type Admission, failedResetCases } from "../../testing/service/reset.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { RequestGate } from "./request-gate.ts";

/** A request whose answer comes when `answer` is called. */
function slowRequest() {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  const handle = async () => {
    await answered;
    return new Response("slow");
  };
  return { answer, handle };
}

const refused = () => new Response(null, { status: 503 });

describe("RequestGate (svc-hub's own admin API, POST /admin/reset)", () => {
  it("runs the reset only once the requests in flight are answered", async () => {
    const gate = new RequestGate();
    const slow = slowRequest();
    const inFlight = gate.pass(slow.handle, refused);
    const steps: string[] = [];
    const reset = gate.alone(1_000, async () => void steps.push("reset"));
    await Bun.sleep(5);
    expect(steps).toEqual([]);
    slow.answer();
    expect(await (await inFlight).text()).toBe("slow");
    await reset;
    expect(steps).toEqual(["reset"]);
  });

  it("holds a request that arrives during the reset and answers it after, not refused", async () => {
    const gate = new RequestGate();
    const steps: string[] = [];
    let finish!: () => void;
    const reset = gate.alone(
      1_000,
      () =>
        new Promise<void>((resolve) => {
          finish = () => {
            steps.push("reset done");
            resolve();
          };
        }),
    );
    await Bun.sleep(1);
    const request = async () => {
      steps.push("request");
      return new Response("ok");
    };
    const waiting = gate.pass(request, refused);
    await Bun.sleep(5);
    expect(steps).toEqual([]);
    finish();
    await reset;
    expect((await waiting).status).toBe(200);
    expect(steps).toEqual(["reset done", "request"]);
  });

  it("answers busy, with nothing done, when a request in flight outlasts the wait; the gate is open again after", async () => {
    const gate = new RequestGate();
    const slow = slowRequest();
    const inFlight = gate.pass(slow.handle, refused);
    let ran = false;
    const reset = async () => {
      ran = true;
    };
    await expect(gate.alone(20, reset)).rejects.toBeInstanceOf(ServiceBusyError);
    expect(ran).toBe(false);
    expect((await gate.pass(async () => new Response("next"), refused)).status).toBe(200);
    slow.answer();
    await inFlight;
  });

  it("refuses every request while told to (a reset failed after it erased the store), until told otherwise", async () => {
    const gate = new RequestGate();
    gate.refuseAll(true);
    expect((await gate.pass(async () => new Response("ok"), refused)).status).toBe(503);
    gate.refuseAll(false);
    expect((await gate.pass(async () => new Response("ok"), refused)).status).toBe(200);
  });

  it("runs two resets one after the other, never together", async () => {
    const gate = new RequestGate();
    const steps: string[] = [];
    const first = gate.alone(1_000, async () => {
      steps.push("first starts");
      await Bun.sleep(10);
      steps.push("first ends");
    });
    const second = gate.alone(1_000, async () => void steps.push("second"));
    await Promise.all([first, second]);
    expect(steps).toEqual(["first starts", "first ends", "second"]);
  });
});

const request = () => Promise.resolve(new Response("answered"));
const refusedBusy = () => new Response(null, { status: 503, headers: { "retry-after": "1" } });

/** A gate, and what a request passing it now gets: answered (200), or refused as busy (503, Retry-After 1). */
function gateAdmission(): Admission {
  const requests = new RequestGate();
  return {
    stores: createMemoryStores(),
    requests,
    async answer() {
      const answer = await requests.pass(request, refusedBusy);
      if (answer.status === 200) return "answered";
      expect([answer.status, answer.headers.get("retry-after")]).toEqual([503, "1"]);
      return "refused";
    },
  };
}

describe("RequestGate under the reset use case (POST /admin/reset)", () => {
  // The reset use case on this gate, its other steps only saying they ran: the same cases as the core's, on a
  // stand-in for the gate (core/service/reset.use-cases.test.ts).
  for (const [name, run] of Object.entries(failedResetCases)) it(name, () => run(gateAdmission()));
});
