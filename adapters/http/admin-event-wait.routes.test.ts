/**
 * Issue 43, point 2 in-process: POST /admin/events/wait answers as soon as enough matching events are stored
 * (a long poll), or at its timeout with what it found; POST /admin/events/count counts them.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { openInProcessDemo } from "./in-process-demo.ts";

const adminToken = "test-admin-token";
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open() {
  const { call } = await openInProcessDemo(adminToken, (close) => cleanups.push(close));
  const admin = async (path: string, body: unknown) => {
    const answer = await call(path, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };
  const collect = async (query: string) => {
    const answer = await call(`/event?svc_account=acme&svc_profile=main&${query}`);
    expect(answer.status).toBe(200);
  };
  return { call, admin, collect };
}

describe("issue 43, point 2: waiting for events", () => {
  it("a wait started before the event answers once it is stored, with the event; others do not end it", async () => {
    const { admin, collect } = await open();
    const waiting = admin("/admin/events/wait", {
      account: "acme",
      event: "purchase",
      params: { sku: "A1" },
      timeoutMs: 60_000,
    });
    await collect("svc_event=purchase&sku=B2&tapid=v1");
    await collect("svc_event=purchase&sku=A1&tapid=v1");
    const { status, body } = await waiting;
    expect(status).toBe(200);
    expect(body).toMatchObject({ met: true, min: 1, count: 1 });
    expect((body.events as Array<{ data: Record<string, unknown> }>)[0]?.data.sku).toBe("A1");
  });

  it("a timeout answers met false with the events found so far", async () => {
    const { admin, collect } = await open();
    await collect("svc_event=signup&tapid=v2");
    const { status, body } = await admin("/admin/events/wait", { event: "signup", min: 2, timeoutMs: 0 });
    expect(status).toBe(200);
    expect(body).toMatchObject({ met: false, min: 2, count: 1 });
    expect(body.events as unknown[]).toHaveLength(1);
  });

  it("counts the matching events and answers the first `limit`", async () => {
    const { admin, collect } = await open();
    for (const qty of ["1", "2", "2", "2"]) await collect(`svc_event=add&qty=${qty}&tapid=v3`);
    const { status, body } = await admin("/admin/events/count", { event: "add", params: { qty: "2" }, limit: 2 });
    expect(status).toBe(200);
    expect(body.count).toBe(3);
    expect(body.events as unknown[]).toHaveLength(2);
  });

  it("refuses a bad field with 400 1400 naming it", async () => {
    const { admin } = await open();
    const since = await admin("/admin/events/wait", { since: "yesterday" });
    expect(since).toMatchObject({ status: 400, body: { returnCode: 1400 } });
    expect(String(since.body.message)).toContain("since");
    const unknown = await admin("/admin/events/count", { evnt: "x" });
    expect(unknown).toMatchObject({ status: 400, body: { returnCode: 1400 } });
    expect(String(unknown.body.message)).toContain("evnt");
  });
});
