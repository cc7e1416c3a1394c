/**
 * The visitor-data (moments) API in-process, beyond what the black-box conformance scenarios can see: a
 * configuration changed under stored profiles (the scenarios cannot change the configuration).
 */

import { afterEach, describe, expect, it } from "bun:test";
import { inProcessBase } from "../../harness/target.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service } from "../server/service.ts";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(): Promise<Service> {
  const service = await openDemoService({ timing: "fast", adminToken: "test-admin-token" });
  cleanups.push(() => service.close());
  service.start();
  return service;
}

/** A page on a subdomain of example.com, which the demo engines allow. */
const page = { referer: "https://shop.example.com/product/42", origin: "https://shop.example.com" };

describe("visitor data in-process", () => {
  it("[MOM-03, DEC-MOM-04] a number stored under an attribute since configured as a date is left out, and the visitor still answers 200", async () => {
    const service = await open();
    const call = (path: string, init: RequestInit = {}) =>
      service.app.handle(new Request(`${inProcessBase}${path}`, init));
    const visitor = `retyped-${crypto.randomUUID()}`;
    const event = await call("/event", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        svc_account: "acme",
        svc_profile: "main",
        svc_visitor_id: visitor,
        svc_event: "purchase",
        amount: 12.5,
      }),
    });
    expect(event.status).toBe(200);
    expect(
      (await call("/admin/wait", { method: "POST", headers: { authorization: `Bearer ${service.deps.adminToken}` } }))
        .status,
    ).toBe(200);

    // The configuration changes attribute 5207 from number to date, and the demo engines now select it;
    // the stored 12.5 stays as it was.
    const stored = await service.stores.tenancy.findProfile("acme", "main");
    if (!stored) throw new Error("the demo profile acme/main is missing");
    await service.stores.tenancy.putProfile(
      "acme",
      {
        ...stored.config,
        attributes: stored.config.attributes.map((attribute) =>
          attribute.id === 5207 ? { ...attribute, type: "date" as const } : attribute,
        ),
        engines: stored.config.engines.map((engine) => ({ ...engine, attributes: [...engine.attributes, 5207] })),
      },
      service.deps.clock.now(),
    );

    for (const [engine, purchasedKey] of [
      ["demo-engine", "Last purchase"],
      ["demo-engine-ids", "5204"],
    ] as const) {
      const response = await call(
        `/personalization/accounts/acme/profiles/main/engines/${engine}/visitors/${visitor}`,
        { headers: page },
      );
      expect(response.status).toBe(200);
      const data = (await response.json()) as { metrics: Record<string, number>; dates: Record<string, number> };
      expect(Object.keys(data.dates)).toEqual([purchasedKey]);
      expect(Number.isInteger(data.dates[purchasedKey])).toBe(true);
      expect(Object.keys(data.metrics)).toEqual([engine === "demo-engine" ? "Lifetime event count" : "5201"]);
    }
  });

  it("[DEC-MOM-02] an identifier that is not valid percent-encoding names no visitor: 404, not a 500; a TAPID entry still wins", async () => {
    const service = await open();
    const call = (path: string, init: RequestInit = {}) =>
      service.app.handle(new Request(`${inProcessBase}${path}`, init));
    const base = "/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors";
    for (const identifier of ["%FF", "%E0%A4%A", "a%"]) {
      const answer = await call(`${base}/${identifier}`, { headers: page });
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { message: string }).message).toBeString();
      const suppressed = await call(`${base}/${identifier}?suppressNotFound=true`, { headers: page });
      expect(suppressed.status).toBe(200);
    }
    const visitor = `pct-${crypto.randomUUID()}`;
    const event = await call("/event", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ svc_account: "acme", svc_profile: "main", svc_visitor_id: visitor, svc_event: "view" }),
    });
    expect(event.status).toBe(200);
    expect(
      (await call("/admin/wait", { method: "POST", headers: { authorization: `Bearer ${service.deps.adminToken}` } }))
        .status,
    ).toBe(200);
    const withTapid = await call(`${base}/%FF`, { headers: { ...page, cookie: `TAPID=acme/main>${visitor}|` } });
    expect(withTapid.status).toBe(200);
  });

  it("[DEC-MOM-02] a query parameter given twice keeps its first value, as the privacy API reads it", async () => {
    const service = await open();
    const call = (path: string, init: RequestInit = {}) =>
      service.app.handle(new Request(`${inProcessBase}${path}`, init));
    const event = await call("/event", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        svc_account: "acme",
        svc_profile: "main",
        svc_visitor_id: `twice-${crypto.randomUUID()}`,
        svc_event: "view",
        email_address: "twice+1@example.com",
      }),
    });
    expect(event.status).toBe(200);
    expect(
      (await call("/admin/wait", { method: "POST", headers: { authorization: `Bearer ${service.deps.adminToken}` } }))
        .status,
    ).toBe(200);
    const base = "/personalization/accounts/acme/profiles/main/engines/demo-engine";
    const status = async (query: string) => (await call(`${base}?${query}`, { headers: page })).status;
    expect(await status("attributeId=5120&attributeId=5121&attributeValue=twice%2B1%40example.com")).toBe(200);
    expect(await status("attributeId=5121&attributeId=5120&attributeValue=twice%2B1%40example.com")).toBe(404);
    expect(await status("attributeId=5120&attributeValue=twice%2B1%40example.com&attributeValue=other")).toBe(200);
    expect(await status("attributeId=5120&attributeValue=twice+1%40example.com")).toBe(404);
    expect(await status("attributeId=5120&attributeValue=nobody&suppressNotFound=true&suppressNotFound=false")).toBe(
      200,
    );
  });

  it("[DEC-MOM-04] a preflight allows the methods a 405 names in Allow, HEAD among them", async () => {
    const service = await open();
    const path = "/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/someone";
    const preflight = await service.app.handle(
      new Request(`${inProcessBase}${path}`, {
        method: "OPTIONS",
        headers: { origin: page.origin, "access-control-request-method": "HEAD" },
      }),
    );
    expect(preflight.status).toBe(204);
    const refused = await service.app.handle(
      new Request(`${inProcessBase}${path}`, { method: "DELETE", headers: { origin: page.origin } }),
    );
    expect(refused.status).toBe(405);
    expect(preflight.headers.get("access-control-allow-methods")).toBe(refused.headers.get("allow"));
    expect(refused.headers.get("allow")?.split(", ")).toContain("HEAD");
  });

  it("[MOM-01, MOM-03] the visitor data is answered as JSON text, and the request journal keeps the answer as sent", async () => {
    const service = await open();
    const call = (path: string, init: RequestInit = {}) =>
      service.app.handle(new Request(`${inProcessBase}${path}`, init));
    const admin = { authorization: `Bearer ${service.deps.adminToken}` };
    const visitor = `journaled-${crypto.randomUUID()}`;
    const event = await call(`/event?svc_account=acme&svc_profile=main&svc_visitor_id=${visitor}&svc_event=purchase`);
    expect(event.status).toBe(200);
    expect((await call("/admin/wait", { method: "POST", headers: admin })).status).toBe(200);

    const lookup = await call(`/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/${visitor}`, {
      headers: page,
    });
    expect(lookup.status).toBe(200);
    expect(lookup.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(lookup.headers.get("access-control-allow-origin")).toBe(page.origin);
    const text = await lookup.text();
    expect(JSON.parse(text)).toMatchObject({ audiences: ["Purchasers"], badges: ["Buyer"] });

    const journal = await call("/admin/requests?path=/personalization/*", { headers: admin });
    const [entry] = (
      (await journal.json()) as { requests: Array<{ response: { headers: Record<string, string>; body: unknown } }> }
    ).requests;
    expect(entry?.response.headers["content-type"]).toBe("application/json;charset=utf-8");
    expect(entry?.response.body).toEqual({ text, bytes: new TextEncoder().encode(text).byteLength, truncated: false });
  });

  it("[MOM-09, issue 43] a visitor not found with suppressNotFound=true is an empty 200, journaled with no body", async () => {
    const service = await open();
    const call = (path: string, init: RequestInit = {}) =>
      service.app.handle(new Request(`${inProcessBase}${path}`, init));
    const lookup = await call(
      "/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/nobody-here?suppressNotFound=true",
      { headers: page },
    );
    expect(lookup.status).toBe(200);
    expect(await lookup.text()).toBe("");
    const journal = await call("/admin/requests?path=/personalization/*", {
      headers: { authorization: `Bearer ${service.deps.adminToken}` },
    });
    const [entry] = ((await journal.json()) as { requests: Array<{ status: number; response: { body: unknown } }> })
      .requests;
    expect(entry?.status).toBe(200);
    expect(entry?.response.body).toBeNull();
  });
});
