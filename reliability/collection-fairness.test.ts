/**
 * Fairness and budgets at event collection. A flood of events from one client address must not spend the
 * whole of an account's 100 events per second (DEC-COL-07) while other clients send; a client alone still
 * gets all 100; the bytes of events a client may write per second are bounded; and events older than the
 * retention are expired in the background, on the virtual clock, while the profiles built from them stay.
 * In-process: each request reads as sent from the address given to `requestFrom`.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfigFile } from "../adapters/config/config.loader.ts";
import { demoConfigPath } from "../adapters/config/demo-config.ts";
import { requestFrom } from "../adapters/http/connection.ts";
import { openDemoService } from "../adapters/server/demo-service.ts";
import type { Service, StoreChoice } from "../adapters/server/service.ts";
import { databaseUrlForDataDir } from "../adapters/store-libsql/libsql.stores.ts";
import type { ServiceConfig } from "../core/config/index.ts";

const origin = "http://localhost";
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function demoConfig(): Promise<ServiceConfig> {
  const loaded = await loadConfigFile(demoConfigPath);
  if (!loaded.ok) throw new Error(loaded.error.format());
  return loaded.value;
}

/** The store variants: memory, libSQL with the background work inline, and in its own thread as main.ts runs it. */
type StoreVariant = "memory" | "libsql" | "libsql-thread";

async function open(options: { store?: StoreVariant; config?: ServiceConfig } = {}): Promise<Service> {
  const config = options.config ?? (await demoConfig());
  let store: StoreChoice = { kind: "memory" };
  let dataDir: string | undefined;
  if (options.store === "libsql" || options.store === "libsql-thread") {
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-fairness-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    store = { kind: "libsql", url: databaseUrlForDataDir(dir) };
    dataDir = dir;
  }
  const service = await openDemoService({
    store,
    dataDir,
    config,
    backgroundThread: options.store === "libsql-thread",
  });
  service.start();
  cleanups.push(() => service.close());
  return service;
}

function pixel(service: Service, address: string, query: Record<string, string>): Promise<Response> {
  return Promise.resolve(service.app.handle(requestFrom(address, `${origin}/event?${new URLSearchParams(query)}`)));
}

function post(service: Service, address: string, body: unknown): Promise<Response> {
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  return Promise.resolve(service.app.handle(requestFrom(address, `${origin}/event`, init)));
}

function admin(service: Service, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${service.deps.adminToken}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const init = body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) };
  return Promise.resolve(service.app.handle(new Request(`${origin}${path}`, init)));
}

async function storedCount(service: Service, query: string): Promise<number> {
  const answer = await admin(service, `/admin/events?${query}&limit=1000`);
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { events: unknown[] }).events.length;
}

const statusesOf = (answers: readonly Response[]) => answers.map((answer) => answer.status);
const count = (statuses: readonly number[], status: number) => statuses.filter((value) => value === status).length;

describe("fairness between sources at collection (DEC-COL-07 and beneath it)", () => {
  it("a flood of 320 junk events to acme/dev from one address leaves room for another client's real events to acme/main", async () => {
    const service = await open();
    const real = { svc_account: "acme", svc_profile: "main", svc_event: "page_view", svc_visitor_id: "real-visitor" };
    // The real client has sent to the account (it is active) when the flood starts.
    expect((await pixel(service, "203.0.113.7", real)).status).toBe(200);
    const flood = await Promise.all(
      Array.from({ length: 320 }, (_, index) =>
        pixel(service, "198.51.100.66", { svc_account: "acme", svc_profile: "dev", svc_event: `junk-${index}` }),
      ),
    );
    const realAfter = await Promise.all(Array.from({ length: 10 }, () => pixel(service, "203.0.113.7", real)));
    const flooded = statusesOf(flood);
    expect(count(flooded, 200) + count(flooded, 429)).toBe(320);
    // Two sources: the flooder holds at most half of the account's 100 in the window.
    expect(count(flooded, 200)).toBeLessThanOrEqual(50);
    expect(statusesOf(realAfter)).toEqual(Array.from({ length: 10 }, () => 200));
    const refused = flood.find((answer) => answer.status === 429) as Response;
    expect(refused.headers.get("x-error")).toBe("Rate limit exceeded");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await storedCount(service, "account=acme&profile=main&visitor=real-visitor")).toBe(11);
  });

  it("two flooding sources each get their share of the account's 100, and no more than 100 together", async () => {
    const service = await open();
    const event = (name: string) => ({ svc_account: "acme", svc_profile: "main", svc_event: name });
    expect((await pixel(service, "192.0.2.2", event("b-hello"))).status).toBe(200);
    const fromA = await Promise.all(Array.from({ length: 150 }, () => pixel(service, "192.0.2.1", event("a"))));
    const fromB = await Promise.all(Array.from({ length: 150 }, () => pixel(service, "192.0.2.2", event("b"))));
    expect(count(statusesOf(fromA), 200)).toBe(50);
    // B's first event and 49 of its flood: 50 in all.
    expect(count(statusesOf(fromB), 200)).toBe(49);
  });

  it("a source alone still gets the account's whole 100 per second, however many visitor ids it names", async () => {
    const service = await open();
    const answers = await Promise.all(
      Array.from({ length: 130 }, (_, index) =>
        pixel(service, "192.0.2.9", { svc_account: "acme", svc_profile: "main", svc_visitor_id: `v-${index}` }),
      ),
    );
    expect(count(statusesOf(answers), 200)).toBe(100);
    expect(count(statusesOf(answers), 429)).toBe(30);
  });

  it("visitor ids minted by a flooder give it no more than its address's share", async () => {
    const service = await open();
    expect((await pixel(service, "203.0.113.7", { svc_account: "acme", svc_visitor_id: "real" })).status).toBe(200);
    const flood = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        pixel(service, "198.51.100.66", { svc_account: "acme", svc_visitor_id: `minted-${index}` }),
      ),
    );
    expect(count(statusesOf(flood), 200)).toBe(50);
    expect((await pixel(service, "203.0.113.7", { svc_account: "acme", svc_visitor_id: "real" })).status).toBe(200);
  });
});

describe("the byte budget of a source", () => {
  it("one address writing 1 MiB events is refused with the same 429 past its bytes per second; another address is not", async () => {
    const service = await open();
    const big = (name: string) => ({ svc_account: "acme", svc_event: name, padding: "x".repeat(1_048_576 - 100) });
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, index) => post(service, "198.51.100.66", big(`big-${index}`))),
    );
    const elapsedSeconds = (performance.now() - started) / 1000;
    const statuses = statusesOf(answers);
    expect(count(statuses, 200) + count(statuses, 429)).toBe(24);
    // The default budget: a bucket of 8 MiB refilled at 8 MiB per second, so at most 8 of these events at
    // once and 8 more for each second the requests took.
    expect(count(statuses, 200)).toBeGreaterThanOrEqual(8);
    expect(count(statuses, 200)).toBeLessThanOrEqual(8 + Math.ceil(8 * elapsedSeconds));
    expect(count(statuses, 429)).toBeGreaterThan(0);
    const refused = answers.find((answer) => answer.status === 429) as Response;
    expect(refused.headers.get("x-error")).toBe("Rate limit exceeded");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await post(service, "203.0.113.7", big("other"))).status).toBe(200);
  });
});

describe("event retention", () => {
  for (const store of ["memory", "libsql", "libsql-thread"] as const) {
    it(`events older than the retention are expired in the background on the virtual clock; the profiles stay (${store})`, async () => {
      const service = await open({ store });
      const visitor = `retained-${store}`;
      for (const name of ["view", "purchase"])
        expect(
          (await post(service, "local", { svc_account: "acme", svc_visitor_id: visitor, svc_event: name })).status,
        ).toBe(200);
      expect((await admin(service, "/admin/wait", {})).status).toBe(200);
      expect(await storedCount(service, `account=acme&visitor=${visitor}`)).toBe(2);
      // The default retention is 396 days: 395 days on, the events are still kept.
      expect((await admin(service, "/admin/clock/advance", { by: "395d" })).status).toBe(200);
      expect((await admin(service, "/admin/wait", {})).status).toBe(200);
      expect(await storedCount(service, `account=acme&visitor=${visitor}`)).toBe(2);
      expect((await admin(service, "/admin/clock/advance", { by: "2d" })).status).toBe(200);
      expect(
        (await post(service, "local", { svc_account: "acme", svc_visitor_id: "fresh", svc_event: "view" })).status,
      ).toBe(200);
      expect((await admin(service, "/admin/wait", {})).status).toBe(200);
      expect(await storedCount(service, `account=acme&visitor=${visitor}`)).toBe(0);
      expect(await storedCount(service, "account=acme&visitor=fresh")).toBe(1);
      const profile = await service.app.handle(
        new Request(`${origin}/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/${visitor}`, {
          headers: { referer: "https://shop.example.com/" },
        }),
      );
      expect(profile.status).toBe(200);
      expect(((await profile.json()) as { metrics: Record<string, number> }).metrics["Lifetime event count"]).toBe(2);
    });
  }

  it("the retention is a limit of the configuration file (limits.eventRetentionDays)", async () => {
    const config = await demoConfig();
    const service = await open({ config: { ...config, limits: { ...config.limits, eventRetentionDays: 2 } } });
    expect(
      (await post(service, "local", { svc_account: "acme", svc_visitor_id: "short", svc_event: "view" })).status,
    ).toBe(200);
    expect((await admin(service, "/admin/clock/advance", { by: "3d" })).status).toBe(200);
    expect((await admin(service, "/admin/wait", {})).status).toBe(200);
    expect(await storedCount(service, "account=acme&visitor=short")).toBe(0);
  });
});
