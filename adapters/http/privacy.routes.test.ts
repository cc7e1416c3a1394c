/**
 * The visitor privacy API in-process, beyond what the black-box conformance scenarios can see: what stays
 * in the database file after a deletion (the file and its WAL are scanned for the deleted address), the
 * audit, a pending deletion across a restart, storage errors ending FAILED, and the store's contents.
 */

import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TimingPresetName } from "../../core/timing/index.ts";
import { inProcessBase } from "../../harness/target.ts";
import { dataDirBytes } from "../../tools/data-dir-bytes.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service, StoreChoice } from "../server/service.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function freshDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-hub-privacy-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function open(
  options: { store?: StoreChoice; timing?: TimingPresetName; dataDir?: string } = {},
): Promise<Service> {
  const service = await openDemoService({
    store: options.store,
    timing: options.timing ?? "fast",
    adminToken: "test-admin-token",
    dataDir: options.dataDir,
  });
  let closed = false;
  cleanups.push(() => (closed ? undefined : service.close()));
  return {
    ...service,
    close: async () => {
      closed = true;
      return service.close();
    },
  };
}

const base = "/v2/visitor/accounts/acme/profiles/main";

/** A client of one service: the demo user's bearer token, events, the privacy API and the admin API. */
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
  const admin = { authorization: `Bearer ${service.deps.adminToken}`, "content-type": "application/json" };
  return {
    call,
    bearer,
    async event(params: Record<string, string | number>) {
      const response = await call("/event", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ svc_account: "acme", svc_profile: "main", ...params }),
      });
      expect(response.status).toBe(200);
    },
    async pixel(query: string) {
      expect((await call(`/event?svc_account=acme&svc_profile=main&${query}`)).status).toBe(200);
    },
    async visitor(email: string, prettyName = false) {
      const response = await call(
        `${base}?attributeId=5120&attributeValue=${encodeURIComponent(email)}&prettyName=${prettyName}`,
        { headers: bearer },
      );
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    async requestDeletion(value: string, attributeId = "5120") {
      const response = await call(base, {
        method: "DELETE",
        headers: { ...bearer, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ attributeId, attributeValue: value }),
      });
      expect(response.status).toBe(202);
      return ((await response.json()) as { transactionId: string }).transactionId;
    },
    async state(id: string) {
      const response = await call(`${base}/transactions/${id}`, { headers: bearer });
      expect(response.status).toBe(200);
      return ((await response.json()) as Record<string, string>)[id];
    },
    async advance(by: string) {
      expect(
        (await call("/admin/clock/advance", { method: "POST", headers: admin, body: JSON.stringify({ by }) })).status,
      ).toBe(200);
      await this.drain();
    },
    async importFile(name: string, csv: string) {
      const response = await call(`/admin/accounts/acme/profiles/main/files/${name}`, {
        method: "POST",
        headers: { authorization: admin.authorization, "content-type": "text/csv" },
        body: csv,
      });
      expect(response.status).toBe(202);
    },
    /** Runs what is due at the clock's time, not what is scheduled later: these tests step through the delays. */
    async drain() {
      expect(
        (await call("/admin/wait", { method: "POST", headers: admin, body: JSON.stringify({ scheduled: false }) }))
          .status,
      ).toBe(200);
    },
  };
}

function occurrences(haystack: Buffer, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) count += 1;
  return count;
}

describe("visitor privacy in-process", () => {
  it("[PRV-09, DEC-PRV-04, DEC-PRV-05] after a deletion, neither the database file, its WAL nor the kept copies of imported files hold the deleted e-mail address, sent padded or not", async () => {
    const dataDir = freshDataDir();
    const url = `file:${join(dataDir, "svc-hub.db")}`;
    const service = await open({ store: { kind: "libsql", url }, dataDir });
    service.start();
    const client = await clientOf(service);
    const email = `erase-me-${crypto.randomUUID()}@example.com`;
    const other = `keep-me-${crypto.randomUUID()}@example.com`;
    // Imported rows: the import keeps the file it received under files/ in the data directory.
    await client.importFile(
      "purchases_202501.csv",
      `email,amount,purchased_at\r\n${other},5,2025-01-01 10:00\r\n${email},7,2025-01-02 11:00\r\n"${email}",8,2025-01-03 12:00\r\n`,
    );

    // The deleted visitor: known events, two stitched anonymous visitors (one by a pixel), a PII attribute.
    await client.event({ svc_visitor_id: "anon-a", svc_event: "view" });
    await client.event({ svc_visitor_id: "anon-a", svc_event: "purchase", email_address: email, amount: 12 });
    await client.pixel(`svc_visitor_id=anon-b&svc_event=view&email_address=${encodeURIComponent(email)}`);
    await client.event({ svc_visitor_id: `__acme_main__5120_${email}__`, svc_event: "login" });
    // DEC-PRV-05: the same address with white space around it, as a visitor ID and as another visitor's parameter.
    await client.event({ svc_visitor_id: "anon-d", svc_event: "view", email_address: `\t${email} ` });
    await client.importFile(
      "purchases_202502.csv",
      `email,amount,purchased_at\r\n" ${email}\t",9,2025-02-01 10:00\r\n`,
    );
    // Someone else, who must stay (the address they name is erased from their event).
    await client.event({
      svc_visitor_id: "anon-c",
      svc_event: "purchase",
      email_address: other,
      referred_by: `${email}\u00a0`,
    });
    await client.drain();
    expect((await client.visitor(email)).status).toBe(200);
    expect(occurrences(dataDirBytes(dataDir), email)).toBeGreaterThan(0);

    const transactionId = await client.requestDeletion(email);
    expect(await client.state(transactionId)).toBe("PENDING");
    await client.advance("3s");
    expect(await client.state(transactionId)).toBe("SUCCESS");

    // While the server still runs (closing the last connection would checkpoint the WAL anyway): the
    // deletion itself checkpointed and truncated the WAL, and secure_delete zeroed the freed bytes.
    const expectNoTrace = () => {
      const bytes = dataDirBytes(dataDir);
      expect(occurrences(bytes, email)).toBe(0);
      expect(occurrences(bytes, encodeURIComponent(email))).toBe(0);
      expect(occurrences(bytes, email.split("@")[0] as string)).toBe(0);
      expect(occurrences(bytes, other)).toBeGreaterThan(0);
    };
    expectNoTrace();
    await service.close();
    expectNoTrace();

    // What stays: the other visitor, and an audit that names the deletion by a hash only.
    const reopened = await open({ store: { kind: "libsql", url }, dataDir });
    const profiles = reopened.stores.profiles;
    expect(await profiles.canonicalOf("acme", "main", "anon-c")).not.toBeNull();
    for (const id of ["anon-a", "anon-b", "anon-d", `__acme_main__5120_${email}__`])
      expect(await profiles.canonicalOf("acme", "main", id)).toBeNull();
    const [kept] = await reopened.stores.events.query({ account: "acme", visitorId: "anon-c", limit: 10 });
    expect(kept?.data).not.toHaveProperty("referred_by");
    expect(kept?.data.email_address).toBe(other);
    expect(await reopened.stores.events.query({ account: "acme", visitorId: "anon-a", limit: 10 })).toEqual([]);
    const audit = await reopened.stores.privacy.auditOf(transactionId);
    expect(audit.map((record) => record.action)).toEqual(["deletion-requested", "deletion-succeeded"]);
    expect(audit[1]?.detail).toEqual({
      visitorIds: 4,
      events: 8,
      profiles: 1,
      eventsRewritten: 1,
      profilesRewritten: 0,
      importedFiles: 2,
      importedRows: 3,
      importsUnfinished: 0,
    });
    const keptCopy = readFileSync(join(dataDir, "files", "acme", "main", "purchases_202501.csv"), "utf8");
    expect(keptCopy).toBe(`email,amount,purchased_at\r\n${other},5,2025-01-01 10:00\r\n`);
    expect(readFileSync(join(dataDir, "files", "acme", "main", "purchases_202502.csv"), "utf8")).toBe(
      "email,amount,purchased_at\r\n",
    );
    for (const record of audit) {
      expect(record.valueHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(record)).not.toContain(email);
      expect(record.attributeId).toBe(5120);
      expect(record.requestedBy).toBe("demo@example.com");
    }
    expect((await reopened.stores.privacy.find("acme", "main", transactionId))?.value).toBeNull();
  });

  it("[PRV-09, DEC-PRV-04] deleting by customer_id removes the stitched visitor's rows, imported by e-mail address, from every kept file", async () => {
    const dataDir = freshDataDir();
    const service = await open({ dataDir });
    service.start();
    const client = await clientOf(service);
    const keptCopy = (name: string) => readFileSync(join(dataDir, "files", "acme", "main", name), "utf8");
    // ann@example.com reaches the service only through the purchases files (visitor ID column email, attribute 5120).
    await client.importFile(
      "purchases_202501.csv",
      "email,amount,purchased_at\r\nbob@example.com,5,2025-01-01 10:00\r\nann@example.com,7,2025-01-02 11:00\r\n",
    );
    await client.importFile(
      "purchases_202502.csv",
      'email,amount,purchased_at\n"ann@example.com",8,2025-02-01 10:00\ncarol@example.com,9,2025-02-02 10:00\n',
    );
    await client.drain();
    // Collected events stitch her to customer_id C-77 (attribute 5121).
    await client.event({ svc_visitor_id: "anon-a", svc_event: "login", email_address: "ann@example.com" });
    await client.event({ svc_visitor_id: "anon-a", svc_event: "view", customer_id: "C-77" });
    await client.drain();
    expect((await client.visitor("ann@example.com")).status).toBe(200);

    const transactionId = await client.requestDeletion("C-77", "5121");
    await client.advance("3s");
    expect(await client.state(transactionId)).toBe("SUCCESS");
    expect((await client.visitor("ann@example.com")).status).toBe(404);
    expect(keptCopy("purchases_202501.csv")).toBe(
      "email,amount,purchased_at\r\nbob@example.com,5,2025-01-01 10:00\r\n",
    );
    expect(keptCopy("purchases_202502.csv")).toBe("email,amount,purchased_at\ncarol@example.com,9,2025-02-02 10:00\n");
    const audit = await service.stores.privacy.auditOf(transactionId);
    expect(audit.at(-1)).toMatchObject({
      action: "deletion-succeeded",
      attributeId: 5121,
      detail: { visitorIds: 3, importedFiles: 2, importedRows: 2, importsUnfinished: 0 },
    });
  });

  it("[PRV-10, DEC-PRV-04] a pending deletion survives a restart and runs after it", async () => {
    const dataDir = freshDataDir();
    const url = `file:${join(dataDir, "svc-hub.db")}`;
    const email = `restart-${crypto.randomUUID()}@example.com`;
    const first = await open({ store: { kind: "libsql", url } });
    const before = await clientOf(first);
    // Not drained here: a drain would take the profiles lease for this process, which a restarted process
    // waits out (15 s) before it applies events or erases; the second process applies the event itself.
    await before.event({ svc_visitor_id: "anon-r", svc_event: "view", email_address: email });
    const transactionId = await before.requestDeletion(email);
    await first.close();

    const second = await open({ store: { kind: "libsql", url } });
    second.start();
    const after = await clientOf(second);
    expect(await after.state(transactionId)).toBe("PENDING");
    expect(await after.requestDeletion(email)).toBe(transactionId);
    await after.advance("3s");
    expect(await after.state(transactionId)).toBe("SUCCESS");
    expect((await after.visitor(email)).status).toBe(404);
    expect(await second.stores.events.query({ account: "acme", visitorId: "anon-r", limit: 10 })).toEqual([]);
  });

  it("[DEC-PRV-04] storage errors are retried after 1, 2, 4 and 8 s; the fifth makes the deletion FAILED, audited without the value", async () => {
    const service = await open();
    service.start();
    const client = await clientOf(service);
    const email = `failing-${crypto.randomUUID()}@example.com`;
    await client.event({ svc_visitor_id: "anon-f", svc_event: "view", email_address: email });
    await client.drain();
    const events = service.stores.events;
    let tries = 0;
    const original = events.deleteVisitors.bind(events);
    events.deleteVisitors = async () => {
      tries += 1;
      throw new Error("SQLITE_IOERR: disk I/O error");
    };
    const transactionId = await client.requestDeletion(email);
    await client.advance("2s");
    for (const by of ["1s", "2s", "4s"]) {
      expect(await client.state(transactionId)).toBe("PENDING");
      await client.advance(by);
    }
    expect(await client.state(transactionId)).toBe("PENDING");
    await client.advance("7s");
    expect(await client.state(transactionId)).toBe("PENDING");
    await client.advance("1s");
    expect(await client.state(transactionId)).toBe("FAILED");
    expect(tries).toBe(5);
    const audit = await service.stores.privacy.auditOf(transactionId);
    expect(audit.at(-1)).toMatchObject({ action: "deletion-failed", detail: { attempts: 5 } });
    expect(JSON.stringify(audit)).not.toContain(email);
    expect((await service.stores.privacy.find("acme", "main", transactionId))?.value).toBeNull();

    // The visitor is still there; a new request (the old one is settled) makes a new transaction that succeeds.
    events.deleteVisitors = original;
    expect((await client.visitor(email)).status).toBe(200);
    const again = await client.requestDeletion(email);
    expect(again).not.toBe(transactionId);
    await client.advance("3s");
    expect(await client.state(again)).toBe("SUCCESS");
    expect((await client.visitor(email)).status).toBe(404);
  });

  it("[DEC-PRV-01, DEC-GEN-07] a number stored under an attribute since configured as a date is left out, and the record still answers 200", async () => {
    const service = await open();
    service.start();
    const client = await clientOf(service);
    const email = `retyped-${crypto.randomUUID()}@example.com`;
    await client.event({ svc_visitor_id: "anon-t", svc_event: "purchase", email_address: email, amount: 12.5 });
    await client.drain();
    const before = await client.visitor(email, true);
    expect(before.status).toBe(200);
    expect((before.body.visitor as { metrics: unknown }).metrics).toEqual({
      "Lifetime event count": 1,
      "Last purchase amount": 12.5,
    });

    // The configuration changes attribute 5207 from number to date; the stored 12.5 stays as it was.
    const stored = await service.stores.tenancy.findProfile("acme", "main");
    if (!stored) throw new Error("the demo profile acme/main is missing");
    const retyped = stored.config.attributes.map((attribute) =>
      attribute.id === 5207 ? { ...attribute, type: "date" as const } : attribute,
    );
    await service.stores.tenancy.putProfile(
      "acme",
      { ...stored.config, attributes: retyped },
      service.deps.clock.now(),
    );

    for (const prettyName of [true, false]) {
      const after = await client.visitor(email, prettyName);
      expect(after.status).toBe(200);
      const visitor = after.body.visitor as { metrics: Record<string, number>; dates: Record<string, number> };
      expect(Object.keys(visitor.dates)).toEqual([prettyName ? "Last purchase" : "5204"]);
      expect(visitor.metrics).toEqual(prettyName ? { "Lifetime event count": 1 } : { "5201": 1 });
    }
  });

  it("[DEC-PRV-05] a deletion request makes the node's collection journal (the console's live feed) forget the value", async () => {
    const service = await open();
    const client = await clientOf(service);
    const email = `journal-${crypto.randomUUID()}@example.com`;
    await client.event({ svc_event: "signup", email_address: email });
    await client.pixel(`svc_visitor_id=${encodeURIComponent(`__acme_main__5120_${email}__`)}`);
    await client.pixel("svc_event=other_visitor");
    const journal = async () => {
      const answer = await client.call("/admin/events/journal?limit=1000", {
        headers: { authorization: `Bearer ${service.deps.adminToken}` },
      });
      expect(answer.status).toBe(200);
      return JSON.stringify(await answer.json());
    };
    expect(await journal()).toContain(email);
    await client.requestDeletion(` ${email} `);
    const after = await journal();
    expect(after).not.toContain(email);
    expect(after).toContain("other_visitor");
  });

  it("[DEC-PRV-05] second probe, finding 5: a deletion request makes the node's request journal (GET /admin/requests) forget the value", async () => {
    const service = await open();
    const client = await clientOf(service);
    const email = `requests-${crypto.randomUUID()}@example.com`;
    const encoded = encodeURIComponent(email);
    await client.pixel(`svc_event=signup&email_address=${encoded}`);
    await client.visitor(email);
    const moments = "/personalization/accounts/acme/profiles/main/engines/demo-engine";
    await client.call(`${moments}?attributeId=5120&attributeValue=${encoded}`);
    await client.call(`${moments}/visitors//${encoded}`);
    await client.pixel("svc_event=other_visitor&email_address=other%40example.com");
    await client.call(`/event?svc_account=globex&svc_profile=main&email_address=${encoded}`);
    const journal = async () => {
      const answer = await client.call("/admin/requests?limit=1000", {
        headers: { authorization: `Bearer ${service.deps.adminToken}` },
      });
      expect(answer.status).toBe(200);
      return (await answer.json()) as { requests: Array<{ account: string | null; query: Record<string, unknown> }> };
    };
    const holding = (answer: Awaited<ReturnType<typeof journal>>) =>
      answer.requests.filter((entry) => JSON.stringify(entry).includes(email)).map((entry) => entry.account);
    expect(holding(await journal())).toEqual(["globex", "acme", "acme", "acme"]);
    await client.requestDeletion(` ${email} `);
    const after = await journal();
    // Another account's request is not this deletion's; the visitor's requests of acme are forgotten.
    expect(holding(after)).toEqual(["globex"]);
    expect(JSON.stringify(after.requests.filter((entry) => entry.account === "acme"))).not.toContain(email);
    expect(JSON.stringify(after)).toContain("other_visitor");
  });

  it("[PRV-06] concurrent identical delete requests answer one transactionId", async () => {
    const service = await open();
    const client = await clientOf(service);
    const email = `burst-${crypto.randomUUID()}@example.com`;
    const ids = await Promise.all(Array.from({ length: 12 }, () => client.requestDeletion(email)));
    expect(new Set(ids).size).toBe(1);
  });

  it("[DEC-PRV-02] says in a header of its own which refusal a 400 1400 was, never quoting attributeValue", async () => {
    const service = await open();
    const client = await clientOf(service);
    const ask = async (path: string, init: RequestInit = {}) => {
      const response = await service.app.handle(
        new Request(`${inProcessBase}${path}`, { ...init, headers: { ...client.bearer, ...init.headers } }),
      );
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        returnCode: 1400,
        message: "Invalid request submission. Please check supplied parameters or request body.",
      });
      return response.headers.get("x-svc-hub-reason");
    };
    const form = { "content-type": "application/x-www-form-urlencoded" };
    expect(await ask(`${base}?attributeId=5201&attributeValue=ann%40example.com`)).toBe(
      "attribute 5201 is not a visitor ID attribute of this profile (those are 5120, 5121)",
    );
    expect(await ask(`${base}?attributeId=email&attributeValue=ann%40example.com`)).toBe(
      'attributeId must be the number of a visitor ID attribute, not "email"',
    );
    expect(await ask(`${base}?attributeId=5120&attributeValue=ann%40example.com&prettyName=yes`)).toBe(
      'prettyName must be true or false, not "yes"',
    );
    expect(await ask(base, { method: "DELETE", headers: form, body: "attributeId=5120" })).toBe(
      "attributeValue is missing",
    );
    expect(
      await ask(`${base}?attributeValue=ann%40example.com`, {
        method: "DELETE",
        headers: form,
        body: "attributeId=5120",
      }),
    ).toBe("attributeValue belongs in the form body of a deletion, not in the query string");
    expect(await ask(base, { method: "DELETE", headers: { "content-type": "application/json" }, body: "{}" })).toBe(
      "the body must be a form (Content-Type application/x-www-form-urlencoded)",
    );
  });

  it("the OpenAPI document declares the privacy routes with their statuses", async () => {
    const service = await open();
    const document = (await (await service.app.handle(new Request(`${inProcessBase}/openapi.json`))).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const path = Object.keys(document.paths).find((candidate) =>
      /\/v2\/visitor\/accounts\/\{account\}\/profiles\/\{profile\}\/?$/.test(candidate),
    );
    expect(path).toBeDefined();
    expect(Object.keys(document.paths[path as string]?.delete?.responses ?? {})).toEqual(
      expect.arrayContaining(["202", "400", "401", "404"]),
    );
    expect(Object.keys(document.paths[path as string]?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "400", "401", "404"]),
    );
  });
});
