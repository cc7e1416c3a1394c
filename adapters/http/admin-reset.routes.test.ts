/**
 * svc-hub's own admin API: POST /admin/reset, the isolation of test cases without a restart. Every kind of
 * state is made through the HTTP API, then the service must answer as a fresh start with the same
 * configuration on an empty store would, on each store and each way of running the background work.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formDataOf } from "../../harness/multipart.ts";
import { inProcessBase } from "../../harness/target.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service, StoreChoice } from "../server/service.ts";
import { databaseUrlForDataDir } from "../store-libsql/libsql.stores.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Variant {
  readonly name: string;
  readonly store: (dataDir: string) => StoreChoice;
  readonly backgroundThread: boolean;
}

const variants: Variant[] = [
  { name: "memory store", store: () => ({ kind: "memory" }), backgroundThread: false },
  {
    name: "libSQL store, background work inline",
    store: (dataDir) => ({ kind: "libsql", url: databaseUrlForDataDir(dataDir) }),
    backgroundThread: false,
  },
  {
    name: "libSQL store, background work in its thread",
    store: (dataDir) => ({ kind: "libsql", url: databaseUrlForDataDir(dataDir) }),
    backgroundThread: true,
  },
];

/** A started demo service on a data directory of its own, closed and removed after the test. */
async function open(variant: Variant): Promise<{ service: Service; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-reset-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const service = await openDemoService({
    store: variant.store(dataDir),
    dataDir,
    timing: "fast",
    adminToken: "reset-test-admin-token",
    backgroundThread: variant.backgroundThread,
  });
  cleanups.push(() => service.close());
  service.start();
  return { service, dataDir };
}

interface Session {
  readonly cookie: string;
  readonly utk: string;
}

/** A client of one service: the calls the tests make, by what they mean. */
function clientOf(service: Service) {
  const call = (path: string, init: RequestInit = {}) =>
    service.app.handle(new Request(`${inProcessBase}${path}`, init));
  const admin = { authorization: `Bearer ${service.deps.adminToken}` };
  const adminJson = { ...admin, "content-type": "application/json" };
  const form = (fields: Record<string, string>) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  const privacy = "/v2/visitor/accounts/acme/profiles/main";
  return {
    call,
    admin,
    login: (username: string, password: string) => call("/v1/login", form({ username, password })),
    async session(username: string, password: string): Promise<Session> {
      const answer = await call("/v1/login", form({ username, password }));
      expect(answer.status).toBe(200);
      return {
        cookie: answer.headers.getSetCookie()[0]!.split(";")[0]!,
        utk: ((await answer.json()) as { utk: string }).utk,
      };
    },
    v1: (session: Session, path: string, init: RequestInit = {}) =>
      call(`${path}${path.includes("?") ? "&" : "?"}utk=${encodeURIComponent(session.utk)}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), cookie: session.cookie },
      }),
    issueToken: (username: string, key: string) => call("/v2/auth", form({ username, key })),
    async token(username: string, key: string): Promise<string> {
      const answer = await call("/v2/auth", form({ username, key }));
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { token: string }).token;
    },
    v2: (token: string, path: string, init: RequestInit = {}) =>
      call(path, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
      }),
    event: (account: string, params: Record<string, string>) =>
      call("/event", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ svc_account: account, svc_profile: "main", ...params }),
      }),
    adminCall: (method: string, path: string, body?: unknown) =>
      call(path, { method, headers: adminJson, body: body === undefined ? undefined : JSON.stringify(body) }),
    upload: (name: string, csv: string) =>
      call(`/admin/accounts/acme/profiles/main/files/${name}`, { method: "POST", headers: admin, body: csv }),
    async wait(): Promise<Record<string, unknown>> {
      const answer = await call("/admin/wait", { method: "POST", headers: admin });
      expect(answer.status).toBe(200);
      return (await answer.json()) as Record<string, unknown>;
    },
    reset: (body?: string) =>
      call("/admin/reset", { method: "POST", headers: body === undefined ? admin : adminJson, body }),
    async events(): Promise<Array<{ visitorId: string; account: string }>> {
      const answer = await call("/admin/events?limit=1000", { headers: admin });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { events: Array<{ visitorId: string; account: string }> }).events;
    },
    visitorRecord: (token: string, email: string) =>
      call(`${privacy}?attributeId=5120&attributeValue=${encodeURIComponent(email)}&prettyName=true`, {
        headers: { authorization: `Bearer ${token}` },
      }),
    requestDeletion: (token: string, email: string) =>
      call(privacy, {
        method: "DELETE",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ attributeId: "5120", attributeValue: email }),
      }),
    transaction: (token: string, id: string) =>
      call(`${privacy}/transactions/${id}`, { headers: { authorization: `Bearer ${token}` } }),
    publishRevision() {
      const body = formDataOf(
        [
          ["name", "Release 12"],
          ["created_by", "ops@example.com"],
          ["targets", "prod"],
        ],
        [{ filename: "utag.js", bytes: "/* loader */\n" }],
      );
      return call("/admin/accounts/acme/profiles/main/revisions", {
        method: "POST",
        headers: admin,
        body,
      });
    },
  };
}

const dataLayers = "/v1/dle/accounts/acme/profiles/main/datalayers";
const fileStatus = "/v2/omnichannel/accounts/acme/profiles/main/files";
const revisions = "/v1/accounts/acme/main/revisions";
const purchases = "email,amount,purchased_at\nann@example.com,12.50,2024-01-31 09:30\n";

async function returnCodeOf(answer: Response): Promise<number> {
  return answer.status === 200 ? 200 : ((await answer.json()) as { returnCode: number }).returnCode;
}

function filesUnder(path: string): string[] {
  return existsSync(path)
    ? readdirSync(path, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name)
    : [];
}

for (const variant of variants) {
  describe(`svc-hub's own admin API: POST /admin/reset (${variant.name})`, () => {
    it("erases state of every kind made through the HTTP API, and the service then answers as a fresh start", async () => {
      const { service, dataDir } = await open(variant);
      const client = clientOf(service);

      // The virtual clock a month ahead; everything below is stamped with that time.
      expect((await client.adminCall("POST", "/admin/clock/advance", { by: "30d" })).status).toBe(200);
      // Users and keys through the admin API: a new user, a new key, and a demo password changed.
      expect(
        (
          await client.adminCall("POST", "/admin/users", {
            email: "ops@example.com",
            password: "ops-password-1",
            grants: [{ account: "acme", profiles: "*" }],
          })
        ).status,
      ).toBe(201);
      const issued = await client.adminCall("POST", "/admin/users/demo@example.com/api-keys");
      expect(issued.status).toBe(201);
      const issuedKey = ((await issued.json()) as { key: string }).key;
      expect(
        (await client.adminCall("PUT", "/admin/users/demo@example.com/password", { password: "changed-password-1" }))
          .status,
      ).toBe(200);
      // A session and a v2 token.
      const session = await client.session("demo@example.com", "changed-password-1");
      const token = await client.token("demo@example.com", "demo-key-0001-acme");
      // A lockout: five failures lock globex's name, even for the right password.
      for (let attempt = 0; attempt < 5; attempt += 1)
        expect(await returnCodeOf(await client.login("globex@example.com", "wrong-password"))).toBe(1401);
      expect(await returnCodeOf(await client.login("globex@example.com", "globex-password-1"))).toBe(1402);
      // An event (a purchase naming ann: a stitched, known visitor), a data layer, a file import and a revision.
      expect(
        (await client.event("acme", { svc_visitor_id: "v-1", svc_event: "purchase", email_address: "ann@example.com" }))
          .status,
      ).toBe(200);
      expect(
        (
          await client.v1(session, `${dataLayers}/homepage`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: '{"page":"home"}',
          })
        ).status,
      ).toBe(201);
      expect((await client.upload("purchases_1.csv", purchases)).status).toBe(202);
      expect((await client.publishRevision()).status).toBe(201);
      await client.wait();
      expect((await client.call("/dle/acme/main/homepage.json")).status).toBe(200);
      expect(
        (
          (await (await client.v2(token, `${fileStatus}/purchases_1.csv`)).json()) as {
            status: Array<{ state: string }>;
          }
        ).status.at(-1)?.state,
      ).toBe("PROCESSED");
      expect(filesUnder(join(dataDir, "files"))).toEqual(["purchases_1.csv"]);
      const before = (await (await client.visitorRecord(token, "ann@example.com")).json()) as {
        visitor: { metrics: Record<string, number> };
      };
      expect(before.visitor.metrics["Lifetime event count"]).toBe(2);
      expect(((await (await client.v1(session, revisions)).json()) as string[]).length).toBe(2);
      // Work left for the background: a data layer change and a deletion, both scheduled later.
      expect(
        (
          await client.v1(session, `${dataLayers}/later`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}",
          })
        ).status,
      ).toBe(201);
      const deletion = await client.requestDeletion(token, "ann@example.com");
      expect(deletion.status).toBe(202);
      const deletionId = ((await deletion.json()) as { transactionId: string }).transactionId;
      // Files waiting in the drop folder, one of them refused earlier.
      const inbox = join(dataDir, "inbox", "acme", "main");
      mkdirSync(join(inbox, "rejected"), { recursive: true });
      writeFileSync(join(inbox, "purchases_2.csv"), purchases);
      writeFileSync(join(inbox, "rejected", "report.csv"), "x\n");
      // globex's rate window full: its hundred events of this second are in, the next one is refused.
      const burst = await Promise.all(
        Array.from({ length: 100 }, (_, index) => client.event("globex", { svc_visitor_id: `g-${index}` })),
      );
      expect(burst.map((answer) => answer.status)).toEqual(Array.from({ length: 100 }, () => 200));
      expect((await client.event("globex", { svc_visitor_id: "g-over" })).status).toBe(429);

      const reset = await client.reset("{}");
      expect(reset.status).toBe(200);
      const report = (await reset.json()) as { erased: Record<string, number>; configuration: Record<string, number> };
      expect(report.erased).toMatchObject({
        accounts: 2,
        profiles: 3,
        users: 4,
        apiKeys: 3,
        events: 102,
        dataLayers: 2,
        revisions: 2,
        privacyTransactions: 2,
        fileImports: 1,
        receivedFiles: 1,
        droppedFiles: 2,
      });
      for (const kind of ["sessions", "lockouts", "visitorProfiles"])
        expect(report.erased[kind]).toBeGreaterThanOrEqual(1);
      // The same answer, key for key, whichever store made it.
      expect(Object.keys(report.erased)).toEqual([
        "accounts",
        "profiles",
        "users",
        "apiKeys",
        "sessions",
        "lockouts",
        "events",
        "visitorProfiles",
        "dataLayers",
        "revisions",
        "privacyTransactions",
        "fileImports",
        "receivedFiles",
        "droppedFiles",
      ]);
      expect(report.configuration).toEqual({ accounts: 2, profiles: 3, users: 3, apiKeys: 2, revisions: 1 });

      // The clock reads real time again.
      const clock = (await (await client.adminCall("GET", "/admin/clock")).json()) as {
        nowMs: number;
        offsetMs: number;
      };
      expect(clock.offsetMs).toBe(0);
      expect(Math.abs(clock.nowMs - Date.now())).toBeLessThan(5_000);
      // Sessions and tokens from before are refused; users, passwords and keys are the configuration's.
      expect(await returnCodeOf(await client.v1(session, dataLayers))).toBe(1401);
      expect((await client.v2(token, `${fileStatus}/purchases_1.csv`)).status).toBe(401);
      expect(
        ((await (await client.adminCall("GET", "/admin/users")).json()) as Array<{ email: string }>).map(
          (user) => user.email,
        ),
      ).toEqual(["demo@example.com", "globex@example.com", "nogrant@example.com"]);
      expect((await client.adminCall("GET", "/admin/users/ops@example.com")).status).toBe(404);
      expect(
        (
          (await (await client.adminCall("GET", "/admin/users/demo@example.com/api-keys")).json()) as Array<{
            id: string;
          }>
        ).map((key) => key.id),
      ).toEqual(["demo-acme"]);
      expect(await returnCodeOf(await client.login("demo@example.com", "changed-password-1"))).toBe(1401);
      const fresh = await client.session("demo@example.com", "demo-password-1");
      expect(await returnCodeOf(await client.login("globex@example.com", "globex-password-1"))).toBe(200);
      expect((await client.issueToken("demo@example.com", issuedKey)).status).toBe(401);
      const newToken = await client.token("demo@example.com", "demo-key-0001-acme");
      // No event, profile, privacy transaction, data layer, import, file or revision is left, but the demo's revision, published again.
      expect(await client.events()).toEqual([]);
      expect((await client.visitorRecord(newToken, "ann@example.com")).status).toBe(404);
      expect(await returnCodeOf(await client.transaction(newToken, deletionId))).toBe(1404);
      expect(await (await client.v1(fresh, dataLayers)).json()).toEqual([]);
      expect((await client.v1(fresh, `${dataLayers}/homepage`)).status).toBe(404);
      expect((await client.call("/dle/acme/main/homepage.json")).status).toBe(404);
      expect((await client.v2(newToken, `${fileStatus}/purchases_1.csv`)).status).toBe(404);
      expect(filesUnder(join(dataDir, "files"))).toEqual([]);
      expect(filesUnder(inbox)).toEqual([]);
      expect(existsSync(inbox)).toBe(true);
      const revisionIds = (await (await client.v1(fresh, revisions)).json()) as string[];
      expect(revisionIds).toHaveLength(1);
      expect(
        ((await (await client.v1(fresh, `${revisions}/${revisionIds[0]}/details`)).json()) as { name: string }).name,
      ).toBe("Demo release");
      expect(await (await client.adminCall("GET", "/admin/accounts")).json()).toEqual([
        { name: "acme", profiles: ["dev", "main"] },
        { name: "globex", profiles: ["main"] },
      ]);
      // No background work is left: the change and the deletion scheduled before are gone.
      const waited = (await client.wait()) as { complete: boolean; processed: Record<string, number> };
      expect(waited.complete).toBe(true);
      expect(Object.values(waited.processed).every((count) => count === 0)).toBe(true);
      // globex's rate window is empty, and the collection counters start again.
      expect((await client.event("globex", { svc_visitor_id: "g-after" })).status).toBe(200);
      expect(await (await client.adminCall("GET", "/admin/collect/stats")).json()).toMatchObject({
        accepted: 1,
        rateLimited: 0,
      });

      // Then it behaves as a fresh one: an event is applied to a new profile, the same file name imports again.
      expect(
        (await client.event("acme", { svc_visitor_id: "v-2", svc_event: "purchase", email_address: "ann@example.com" }))
          .status,
      ).toBe(200);
      expect((await client.upload("purchases_1.csv", purchases)).status).toBe(202);
      await client.wait();
      const after = (await (await client.visitorRecord(newToken, "ann@example.com")).json()) as {
        visitor: { metrics: Record<string, number> };
      };
      expect(after.visitor.metrics["Lifetime event count"]).toBe(2);
      expect(
        (
          (await (await client.v2(newToken, `${fileStatus}/purchases_1.csv`)).json()) as {
            status: Array<{ state: string }>;
          }
        ).status.at(-1)?.state,
      ).toBe("PROCESSED");
      const acmeEvents = (await client.events()).filter((event) => event.account === "acme");
      expect(acmeEvents).toHaveLength(2);
      expect(acmeEvents[0]?.visitorId).toBe("v-2");
    }, 60_000);

    it("events accepted just before a reset, whose commits and profile updates were still under way, are not found after it", async () => {
      const { service } = await open(variant);
      const client = clientOf(service);
      // Sent together and not awaited: the reset is asked for while they are being committed and applied.
      const sent = Array.from({ length: 90 }, (_, index) =>
        client.event("acme", {
          svc_visitor_id: `in-flight-${index}`,
          svc_event: "purchase",
          email_address: `in-flight-${index}@example.com`,
        }),
      );
      const reset = client.reset();
      const answers = await Promise.all(sent);
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 90 }, () => 200));
      expect((await reset).status).toBe(200);
      await client.wait();
      expect(await client.events()).toEqual([]);
      const token = await client.token("demo@example.com", "demo-key-0001-acme");
      for (const index of [0, 45, 89])
        expect((await client.visitorRecord(token, `in-flight-${index}@example.com`)).status).toBe(404);
      const lookup = await client.call(
        "/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/in-flight-0",
        { headers: { referer: "https://example.com/" } },
      );
      expect(lookup.status).toBe(404);
    }, 60_000);
  });
}

describe("svc-hub's own admin API: POST /admin/reset refuses", () => {
  it("a body other than none or {} with 400 1400 naming the problem, and erases nothing then; no admin token is 401", async () => {
    const { service } = await open(variants[0] as Variant);
    const client = clientOf(service);
    expect((await client.event("acme", { svc_visitor_id: "kept" })).status).toBe(200);
    const refusals: Array<[string, string]> = [
      ['{"all":true}', "Invalid request submission. Invalid all: is not a field of this call (it takes no fields)."],
      ["[]", "Invalid request submission. Invalid body: must be a JSON object."],
      ["null", "Invalid request submission. Invalid body: must be a JSON object."],
      ['"reset"', "Invalid request submission. Invalid body: must be a JSON object."],
      ["reset please", "Invalid request submission. Invalid body: not JSON."],
      ["x".repeat(20_000), "Invalid request submission. Invalid body: larger than 16384 bytes."],
    ];
    for (const [body, message] of refusals) {
      const answer = await client.reset(body);
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({ returnCode: 1400, message });
    }
    const unauthorized = await client.call("/admin/reset", { method: "POST" });
    expect(unauthorized.status).toBe(401);
    expect((await client.events()).map((event) => event.visitorId)).toEqual(["kept"]);
    // None, white space and {} are taken.
    for (const body of [undefined, " \n", "{}"]) expect((await client.reset(body)).status).toBe(200);
    expect(await client.events()).toEqual([]);
  });

  it("is described in the OpenAPI document under admin", async () => {
    const { service } = await open(variants[0] as Variant);
    const document = (await (
      await clientOf(service).call("/openapi.json", { headers: clientOf(service).admin })
    ).json()) as {
      paths: Record<string, Record<string, { tags: string[]; summary: string; responses: Record<string, unknown> }>>;
    };
    const operation = document.paths["/admin/reset"]?.post;
    expect(operation?.tags).toEqual(["admin"]);
    expect(operation?.summary).toContain("Reset the service");
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(["200", "400", "401", "503"]);
  });
});

/** Polls `check` until it holds or `withinMs` has passed; answers whether it held. */
async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await Bun.sleep(50);
  }
}

describe("svc-hub's own admin API: POST /admin/reset, seen from another service on the same database file", () => {
  it("finds the store erased at once, and within a second forgets the signing key and its collection counters", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-reset-shared-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const store: StoreChoice = { kind: "libsql", url: databaseUrlForDataDir(dataDir) };
    const services: Service[] = [];
    for (let index = 0; index < 2; index += 1) {
      const service = await openDemoService({ store, dataDir, timing: "fast", adminToken: "reset-test-admin-token" });
      cleanups.push(() => service.close());
      service.start();
      services.push(service);
    }
    const [resetting, other] = services.map(clientOf) as [ReturnType<typeof clientOf>, ReturnType<typeof clientOf>];
    const ids = "/v2/visitor/accounts/acme/profiles/main/ids";
    const token = await other.token("demo@example.com", "demo-key-0001-acme");
    expect((await other.v2(token, ids)).status).toBe(200);
    expect((await other.event("acme", { svc_visitor_id: "on-the-other" })).status).toBe(200);
    expect(await (await other.adminCall("GET", "/admin/collect/stats")).json()).toMatchObject({ accepted: 1 });

    expect((await resetting.reset()).status).toBe(200);
    expect(await other.events()).toEqual([]);
    expect(await eventually(async () => (await other.v2(token, ids)).status === 401, 2_000)).toBe(true);
    expect(await (await other.adminCall("GET", "/admin/collect/stats")).json()).toMatchObject({ accepted: 0 });
    // Both sign with the one new key: each accepts the other's tokens.
    expect((await resetting.v2(await other.token("demo@example.com", "demo-key-0001-acme"), ids)).status).toBe(200);
    expect((await other.v2(await resetting.token("demo@example.com", "demo-key-0001-acme"), ids)).status).toBe(200);
  }, 30_000);
});
