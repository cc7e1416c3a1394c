/**
 * DEC-PRV-05 end to end: a visitor-ID value sent with white space around it (a leading space, a trailing
 * tab) names the same visitor as the value without it, so a deletion of the trimmed value removes it; and a
 * deletion erases every attribute value equal to the deleted value even where it was not taken as a visitor
 * ID (another visitor's parameter, a profile attribute). Checked through the privacy API, /admin/events and
 * the bytes of the database file, on the libSQL store, with the admin wait hook (no sleeps).
 */

import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDemoService } from "../adapters/server/demo-service.ts";
import type { Service } from "../adapters/server/service.ts";
import { inProcessBase } from "../harness/target.ts";
import { dataDirBytes } from "../tools/data-dir-bytes.ts";

const adminToken = "erasure-admin-token";
const base = "/v2/visitor/accounts/acme/profiles/main";
const padded = "pad@example.com";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openOnFile(): Promise<{ service: Service; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-erasure-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const service = await openDemoService({
    store: { kind: "libsql", url: `file:${join(dataDir, "svc-hub.db")}` },
    timing: "fast",
    adminToken,
    dataDir,
  });
  cleanups.push(() => service.close());
  service.start();
  return { service, dataDir };
}

async function clientOf(service: Service) {
  const call = (path: string, init: RequestInit = {}) =>
    service.app.handle(new Request(`${inProcessBase}${path}`, init));
  const issued = await call("/v2/auth", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
  });
  expect(issued.status).toBe(200);
  const bearer = { authorization: `Bearer ${((await issued.json()) as { token: string }).token}` };
  const admin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
  return {
    async event(params: Record<string, unknown>) {
      const response = await call("/event", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ svc_account: "acme", svc_profile: "main", ...params }),
      });
      expect(response.status).toBe(200);
    },
    async visitor(value: string) {
      const response = await call(`${base}?attributeId=5120&attributeValue=${encodeURIComponent(value)}`, {
        headers: bearer,
      });
      return {
        status: response.status,
        body: (await response.json()) as {
          visitor?: { metrics: Record<string, number>; properties: Record<string, string> };
        },
      };
    },
    async requestDeletion(value: string) {
      const response = await call(base, {
        method: "DELETE",
        headers: { ...bearer, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ attributeId: "5120", attributeValue: value }),
      });
      expect(response.status).toBe(202);
      return ((await response.json()) as { transactionId: string }).transactionId;
    },
    async state(id: string) {
      const response = await call(`${base}/transactions/${id}`, { headers: bearer });
      expect(response.status).toBe(200);
      return ((await response.json()) as Record<string, string>)[id];
    },
    async events() {
      const response = await call("/admin/events?account=acme&limit=1000", { headers: admin });
      expect(response.status).toBe(200);
      return (
        (await response.json()) as {
          events: Array<{ visitorId: string; event: string | null; data: Record<string, unknown> }>;
        }
      ).events;
    },
    /** Runs everything due, then moves the virtual clock past the deletion delay and runs what became due. */
    async advance(by: string) {
      expect(
        (await call("/admin/clock/advance", { method: "POST", headers: admin, body: JSON.stringify({ by }) })).status,
      ).toBe(200);
      await this.wait();
    },
    async wait() {
      expect(
        (await call("/admin/wait", { method: "POST", headers: admin, body: JSON.stringify({ scheduled: false }) }))
          .status,
      ).toBe(200);
    },
  };
}

describe("erasure of a visitor-ID value sent with white space around it (DEC-PRV-05)", () => {
  it("[DEC-PRV-05, PRV-09] a deletion of pad@example.com removes the events sent as ' pad@example.com' and 'pad@example.com\\t', from the visitor, /admin/events and the database file", async () => {
    const { service, dataDir } = await openOnFile();
    const client = await clientOf(service);
    await client.event({ svc_visitor_id: "anon-lead", svc_event: "view", email_address: ` ${padded}` });
    await client.event({ svc_visitor_id: "anon-trail", svc_event: "purchase", email_address: `${padded}\t` });
    await client.event({ svc_visitor_id: "anon-known", svc_event: "login", email_address: padded });
    // Someone else, who stays.
    await client.event({ svc_visitor_id: "anon-other", svc_event: "view", email_address: "other@example.com" });
    await client.wait();

    // One visitor, found by the value with or without the white space.
    const found = await client.visitor(padded);
    expect(found.status).toBe(200);
    expect(found.body.visitor?.metrics["5201"]).toBe(3);
    expect((await client.visitor(`\u00a0${padded} `)).status).toBe(200);

    const transactionId = await client.requestDeletion(padded);
    await client.advance("3s");
    expect(await client.state(transactionId)).toBe("SUCCESS");

    expect((await client.visitor(padded)).status).toBe(404);
    const events = await client.events();
    expect(JSON.stringify(events)).not.toContain(padded);
    expect(events.map((event) => event.visitorId)).toEqual(["anon-other"]);
    expect(dataDirBytes(dataDir).includes(padded)).toBe(false);
    expect(dataDirBytes(dataDir).includes("other@example.com")).toBe(true);
  });

  it("[DEC-PRV-05, PRV-09] a deletion erases the value where it was not taken as a visitor ID: another visitor's parameters and profile attribute, and nothing else of them", async () => {
    const { service, dataDir } = await openOnFile();
    const client = await clientOf(service);
    await client.event({ svc_visitor_id: "anon-self", svc_event: "view", email_address: padded });
    // Another visitor whose event carries the value in parameters that are no visitor ID attribute's, one of
    // them feeding a profile attribute (5202, Last event name, is set from svc_event).
    await client.event({
      svc_visitor_id: "anon-referrer",
      svc_event: ` ${padded}`,
      email_address: "referrer@example.com",
      invited: `${padded}\u2003`,
      contacts: { work: padded, home: "home@example.com" },
      amount: 3,
    });
    await client.wait();
    const before = await client.visitor("referrer@example.com");
    expect(before.body.visitor?.properties["5202"]).toBe(` ${padded}`);

    const transactionId = await client.requestDeletion(padded);
    await client.advance("3s");
    expect(await client.state(transactionId)).toBe("SUCCESS");

    const events = await client.events();
    expect(events).toHaveLength(1);
    const [kept] = events;
    expect(kept?.visitorId).toBe("anon-referrer");
    // The parameters that held the value are gone (svc_event with its column); the others stay.
    expect(kept?.event).toBeNull();
    expect(kept?.data).toEqual({
      svc_account: "acme",
      svc_profile: "main",
      svc_visitor_id: "anon-referrer",
      svc_thirdparty_visitor_id: "anon-referrer",
      email_address: "referrer@example.com",
      amount: 3,
    });
    const after = await client.visitor("referrer@example.com");
    expect(after.status).toBe(200);
    expect(after.body.visitor?.properties["5202"]).toBeUndefined();
    expect(after.body.visitor?.properties["5206"]).toBe("referrer@example.com");
    expect(dataDirBytes(dataDir).includes(padded)).toBe(false);
  });

  it("[DEC-PRV-05, PRV-09] a deletion erases the value from an attribute set from a parameter that held it in an array", async () => {
    const { service, dataDir } = await openOnFile();
    const client = await clientOf(service);
    // 5206 (Email) is set from email_address: an array is kept as its JSON text.
    await client.event({ svc_visitor_id: "anon-list", svc_event: "view", email_address: [padded, "list@example.com"] });
    await client.wait();
    expect(dataDirBytes(dataDir).includes(padded)).toBe(true);

    const transactionId = await client.requestDeletion(padded);
    await client.advance("3s");
    expect(await client.state(transactionId)).toBe("SUCCESS");
    expect(dataDirBytes(dataDir).includes(padded)).toBe(false);
  });
});
