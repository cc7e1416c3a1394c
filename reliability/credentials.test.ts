/**
 * Credentials under an adversary (SECURITY.md, "Sessions" and "Lockout"): a burst of wrong logins from one
 * address does not turn another address's first login away, anyone knowing a username cannot shut its owner's
 * key out, a user's live sessions are capped, and a JWT does not outlive a password reset or a disabling, also
 * within one millisecond.
 * In-process, on the memory store; the service-level cases run on a manual clock.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfigFile } from "../adapters/config/config.loader.ts";
import { demoConfigPath } from "../adapters/config/demo-config.ts";
import { requestFrom } from "../adapters/http/connection.ts";
import { cryptoIds, nodeDigests } from "../adapters/runtime/crypto.ts";
import { hostEventLoop } from "../adapters/runtime/event-loop.ts";
import { joseTokenSigner } from "../adapters/runtime/jose-tokens.ts";
import { openDemoService } from "../adapters/server/demo-service.ts";
import type { Service, StoreChoice } from "../adapters/server/service.ts";
import { databaseUrlForDataDir } from "../adapters/store-libsql/libsql.stores.ts";
import { createMemoryStores } from "../adapters/store-memory/memory.stores.ts";
import type { defaultLimits } from "../core/config/index.ts";
import { AuthService, UsersService } from "../core/session/index.ts";
import { manualClock } from "../testing/fakes.ts";
import { seedSignInTenants, signInDeps } from "../testing/session/auth.ts";

const origin = "http://localhost";
const demo = { email: "demo@example.com", password: "demo-password-1", key: "demo-key-0001-acme" };
const formHeaders = { "content-type": "application/x-www-form-urlencoded" };

const opened: Service[] = [];
afterEach(async () => {
  for (const service of opened.splice(0)) await service.close();
});

async function demoService(limits: Partial<typeof defaultLimits> = {}): Promise<Service> {
  const loaded = await loadConfigFile(demoConfigPath);
  if (!loaded.ok) throw new Error(loaded.error.format());
  const service = await openDemoService({ config: { ...loaded.value, limits: { ...loaded.value.limits, ...limits } } });
  opened.push(service);
  return service;
}

function post(service: Service, address: string, path: string, fields: Record<string, string>): Promise<Response> {
  return service.app.handle(
    requestFrom(address, `${origin}${path}`, {
      method: "POST",
      headers: formHeaders,
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

async function returnCode(response: Response): Promise<number> {
  return ((await response.json()) as { returnCode: number }).returnCode;
}

async function sessionOf(response: Response): Promise<{ cookie: string; utk: string }> {
  expect(response.status).toBe(200);
  const utk = ((await response.json()) as { utk: string }).utk;
  const cookie = /JSESSIONID=([^;]*)/.exec(response.headers.get("set-cookie") ?? "")?.[1] ?? "";
  return { cookie, utk };
}

/** The status of a v1 call made with a session: 200 while it lives, 401 once it has ended. */
async function sessionStatus(service: Service, session: { cookie: string; utk: string }): Promise<number> {
  const url = `${origin}/v1/dle/accounts/acme/profiles/main/datalayers?utk=${encodeURIComponent(session.utk)}`;
  return (await service.app.handle(new Request(url, { headers: { cookie: `JSESSIONID=${session.cookie}` } }))).status;
}

describe("finding 3: a burst of wrong logins from one address does not refuse another's first login", () => {
  // One IPv6 host holds its /64 whole: 70 addresses of one /64 are one source, as 70 requests of one address.
  const flooders: Array<[string, (index: number) => string]> = [
    ["one address", () => "203.0.113.7"],
    ["70 addresses of one IPv6 /64", (index) => `2001:db8:0:1::${(index + 1).toString(16)}`],
  ];
  for (const [shape, flooder] of flooders) {
    it(`with 70 wrong logins for made-up names in flight from ${shape}, the demo user's first login from another address succeeds`, async () => {
      const service = await demoService();
      let firstAnswered: () => void = () => {};
      const flooded = new Promise<void>((resolve) => (firstAnswered = resolve));
      const burst = Array.from({ length: 70 }, (_, index) =>
        post(service, flooder(index), "/v1/login", {
          username: `made-up-${index}-${crypto.randomUUID()}@example.com`,
          password: "wrong-password",
        }).then(async (response) => {
          const code = response.status === 503 ? 1503 : await returnCode(response);
          firstAnswered();
          return code;
        }),
      );
      // Once one of its attempts is answered, the flooding address's others are in flight: its turns taken and
      // its line full (second probe, finding 2), its checks in the queue.
      await flooded;
      const first = await post(service, "198.51.100.9", "/v1/login", {
        username: demo.email,
        password: demo.password,
      }).finally(() => Promise.all(burst));
      expect(first.status).toBe(200);
      const codes = await Promise.all(burst);
      expect(codes.every((code) => code === 1401 || code === 1503)).toBe(true);
      expect(codes.filter((code) => code === 1401).length).toBeGreaterThan(0);
    }, 60_000);
  }
});

describe("finding 4: a locked key login still takes the right key (DEC-AUT-01)", () => {
  it("after five wrong keys a wrong key is 401 1402 and the owner's right key gets a token; the password login is unaffected", async () => {
    const service = await demoService();
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const wrong = await post(service, "local", "/v2/auth", { username: demo.email, key: "a-guessed-key" });
      expect([wrong.status, await returnCode(wrong)]).toEqual([401, 1401]);
    }
    const locked = await post(service, "local", "/v2/auth", { username: demo.email, key: "another-guess" });
    expect([locked.status, await returnCode(locked)]).toEqual([401, 1402]);
    const right = await post(service, "local", "/v2/auth", { username: demo.email, key: demo.key });
    expect(right.status).toBe(200);
    expect(((await right.json()) as { token: string }).token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const stillLocked = await post(service, "local", "/v2/auth", { username: demo.email, key: "a-third-guess" });
    expect([stillLocked.status, await returnCode(stillLocked)]).toEqual([401, 1402]);
    expect((await post(service, "local", "/v1/login", { username: demo.email, password: demo.password })).status).toBe(
      200,
    );
  }, 30_000);

  it("a flood of 300 wrong keys for a locked name from one address does not turn away the owner's right key from another", async () => {
    const service = await demoService();
    for (let attempt = 1; attempt <= 5; attempt += 1)
      await post(service, "198.51.100.66", "/v2/auth", { username: demo.email, key: "a-guessed-key" });
    const flood = Array.from({ length: 300 }, (_, index) =>
      post(service, "198.51.100.66", "/v2/auth", { username: demo.email, key: `guess-${index}` }).then(
        async (answer) => [answer.status, await returnCode(answer)],
      ),
    );
    const right = await post(service, "203.0.113.7", "/v2/auth", { username: demo.email, key: demo.key });
    expect(right.status).toBe(200);
    const answers = await Promise.all(flood);
    // Each wrong key is 1402, checked or not: the flooder is slowed to a check a second, the rest refused. Its
    // address has 8 attempts worked on at once and 256 waiting their turn (second probe, finding 2): the others,
    // at most 300 - 8 - 256, are answered busy.
    const busy = answers.filter(([status, code]) => status === 503 && code === 1503).length;
    expect(answers.filter(([status, code]) => status === 401 && code === 1402).length).toBe(300 - busy);
    expect(busy).toBeLessThanOrEqual(300 - 8 - 256);
  }, 30_000);

  it("[DEC-SES-01] a locked password login still refuses the right password", async () => {
    const service = await demoService();
    for (let attempt = 1; attempt <= 5; attempt += 1)
      await post(service, "local", "/v1/login", { username: demo.email, password: "wrong-password" });
    const right = await post(service, "local", "/v1/login", { username: demo.email, password: demo.password });
    expect([right.status, await returnCode(right)]).toEqual([401, 1402]);
  }, 30_000);
});

describe("finding 6: a user's live sessions are capped, the oldest ending first", () => {
  it("by default, the 51st login of a user ends the first session and keeps the 50 newest", async () => {
    const service = await demoService();
    const sessions = [];
    for (let index = 0; index < 51; index += 1)
      sessions.push(
        await sessionOf(await post(service, "local", "/v1/login", { username: demo.email, password: demo.password })),
      );
    expect(await sessionStatus(service, sessions[0]!)).toBe(401);
    const statuses = await Promise.all(sessions.slice(1).map((session) => sessionStatus(service, session)));
    expect(statuses).toEqual(Array(50).fill(200));
  });

  it("the limit maxSessionsPerUser is configurable", async () => {
    const service = await demoService({ maxSessionsPerUser: 2 } as Partial<typeof defaultLimits>);
    const sessions = [];
    for (let index = 0; index < 4; index += 1)
      sessions.push(
        await sessionOf(await post(service, "local", "/v1/login", { username: demo.email, password: demo.password })),
      );
    expect(await Promise.all(sessions.map((session) => sessionStatus(service, session)))).toEqual([401, 401, 200, 200]);
  });
});

describe("finding 10: a bearer token does not outlive a password reset or a disabling", () => {
  async function setup() {
    const stores = createMemoryStores();
    const clock = manualClock(Date.UTC(2026, 10, 27, 12, 0, 0, 100));
    await seedSignInTenants(stores, clock.now());
    const host = { ids: cryptoIds, digests: nodeDigests, tokens: joseTokenSigner, eventLoop: hostEventLoop };
    const deps = signInDeps(stores, clock, host);
    const auth = new AuthService(deps);
    const users = new UsersService({ ...deps, unlock: (email) => auth.unlock(email) });
    const token = async () => {
      const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
      if (!issued.ok) throw new Error(issued.error.message);
      return `Bearer ${issued.value.token}`;
    };
    return { auth, users, token, advance: clock.advance };
  }

  it("a token issued before a password reset is refused after it, also within the same second; one issued after it in that second works", async () => {
    const { auth, users, token, advance } = await setup();
    const before = await token();
    advance(300);
    expect((await users.resetPassword("ann@example.com", "a-new-password-1")).ok).toBe(true);
    expect(await auth.authenticateBearer(before)).toMatchObject({ ok: false, error: { returnCode: 1401 } });
    advance(300);
    const after = await token();
    expect((await auth.authenticateBearer(after)).ok).toBe(true);
    advance(60_000);
    expect((await auth.authenticateBearer(after)).ok).toBe(true);
    expect((await auth.authenticateBearer(before)).ok).toBe(false);
  });

  it("a token issued before its user was disabled does not work again once the user is enabled", async () => {
    const { auth, users, token, advance } = await setup();
    const before = await token();
    advance(5_000);
    await users.setDisabled("ann@example.com", true);
    advance(5_000);
    await users.setDisabled("ann@example.com", false);
    expect(await auth.authenticateBearer(before)).toMatchObject({ ok: false, error: { returnCode: 1401 } });
    expect((await auth.authenticateBearer(await token())).ok).toBe(true);
  });

  it("changing grants leaves the user's tokens working: only a reset or a disabling ends them", async () => {
    const { auth, users, token, advance } = await setup();
    const before = await token();
    advance(2_000);
    await users.setGrants("ann@example.com", [{ account: "acme", profiles: "*" }]);
    expect((await auth.authenticateBearer(before)).ok).toBe(true);
  });
});

describe("second probe, finding 6: a token minted between two password resets of one millisecond ends at the second", () => {
  for (const kind of ["memory", "libsql"] as const) {
    it(`through the HTTP app, the clock standing still (${kind})`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-token-generation-"));
      const store: StoreChoice =
        kind === "memory" ? { kind: "memory" } : { kind: "libsql", url: databaseUrlForDataDir(dataDir) };
      // Every request below is answered in the same millisecond of the virtual clock.
      const frozen = Date.UTC(2026, 10, 27, 12, 0, 0, 500);
      const service = await openDemoService({ store, dataDir, realNow: () => frozen });
      const admin = { authorization: `Bearer ${service.deps.adminToken}`, "content-type": "application/json" };
      const reset = async (password: string) => {
        const path = `/admin/users/${encodeURIComponent(demo.email)}/password`;
        const body = JSON.stringify({ password });
        const answer = await service.app.handle(
          new Request(`${origin}${path}`, { method: "PUT", headers: admin, body }),
        );
        expect(answer.status).toBe(200);
      };
      const mint = async () => {
        const answer = await post(service, "local", "/v2/auth", { username: demo.email, key: demo.key });
        expect(answer.status).toBe(200);
        return ((await answer.json()) as { token: string }).token;
      };
      const statusWith = async (token: string) => {
        const url = `${origin}/v2/visitor/accounts/acme/profiles/main/ids`;
        return (await service.app.handle(new Request(url, { headers: { authorization: `Bearer ${token}` } }))).status;
      };
      try {
        await reset("a-new-password-1");
        const between = await mint();
        expect(await statusWith(between)).toBe(200);
        await reset("a-new-password-2");
        expect(await statusWith(between)).toBe(401);
        expect(await statusWith(await mint())).toBe(200);
        expect(service.deps.clock.now()).toBe(frozen);
      } finally {
        await service.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 30_000);
  }
});
