import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultLimits } from "../../core/config/config.model.ts";
import type { SecretHasher } from "../../core/ports/hashing.port.ts";
import type { Stores } from "../../core/ports/stores.ts";
import { UsersService } from "../../core/session/users.use-cases.ts";
import { cryptoIds, ServiceBusyError } from "../runtime/crypto.ts";
import { openLibsqlStores } from "../store-libsql/libsql.stores.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { sessionJanitor } from "../workers/session-janitor.worker.ts";
import { AuthService } from "./auth.service.ts";

/** A deterministic, instant hasher: these tests are about the rules around hashing, not argon2 itself. */
const fakeHasher: SecretHasher = {
  hash: async (secret) => `fake$${secret}`,
  verify: async (secret, hash) => hash === `fake$${secret}`,
};

function manualClock(start = Date.UTC(2026, 10, 21)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

async function seed(stores: Stores, now: number): Promise<void> {
  await stores.tenancy.ensureAccount("acme", now);
  await stores.tenancy.putProfile(
    "acme",
    { name: "main", visitorIdAttributes: [], attributes: [], audiences: [], engines: [], fileDefinitions: [] },
    now,
  );
  await stores.tenancy.ensureAccount("globex", now);
  await stores.tenancy.putProfile(
    "globex",
    { name: "main", visitorIdAttributes: [], attributes: [], audiences: [], engines: [], fileDefinitions: [] },
    now,
  );
  const user = { passwordSeed: null, disabled: false, tokensValidAfter: null, createdAt: now, updatedAt: now };
  await stores.tenancy.putUser({
    ...user,
    email: "ann@example.com",
    passwordHash: "fake$ann-password",
    grants: [{ account: "acme", profiles: "*" }],
  });
  await stores.tenancy.putUser({
    ...user,
    email: "gus@example.com",
    passwordHash: "fake$gus-password",
    grants: [{ account: "globex", profiles: ["main"] }],
  });
  await stores.tenancy.putUser({ ...user, email: "nog@example.com", passwordHash: "fake$nog-password", grants: [] });
  await stores.tenancy.putApiKey({
    id: "ann-key",
    userEmail: "ann@example.com",
    keyHash: "fake$ann-api-key",
    keySeed: null,
    createdAt: now,
    revokedAt: null,
  });
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(stores: Stores = createMemoryStores()) {
  const clock = manualClock();
  await seed(stores, clock.now());
  const deps = { stores, hasher: fakeHasher, ids: cryptoIds, clock, limits: defaultLimits };
  return { stores, clock, auth: new AuthService(deps), users: new UsersService(deps) };
}

describe("AuthService: changes committed while an attempt waited its turn (SES-13, DEC-AUT-02)", () => {
  /** A hasher that runs `meanwhile` (once) while it checks: a change committed while the attempt was in flight. */
  function hasherWith(meanwhile: () => Promise<unknown>): SecretHasher {
    let ran = false;
    return {
      hash: fakeHasher.hash,
      verify: async (secret, hash) => {
        if (!ran) {
          ran = true;
          await meanwhile();
        }
        return fakeHasher.verify(secret, hash);
      },
    };
  }

  async function withHasher(hasher: SecretHasher) {
    const stores = createMemoryStores();
    const clock = manualClock();
    await seed(stores, clock.now());
    const users = new UsersService({ stores, hasher: fakeHasher, ids: cryptoIds, clock });
    return { stores, users, auth: new AuthService({ stores, hasher, ids: cryptoIds, clock, limits: defaultLimits }) };
  }

  it("[SES-13] a login with the old password that was checked while a reset committed leaves no session", async () => {
    let users: UsersService | null = null;
    const { auth, stores, ...rest } = await withHasher(
      hasherWith(async () => users?.resetPassword("ann@example.com", "a-new-password-1")),
    );
    users = rest.users;
    expect(await auth.login("ann@example.com", "ann-password", "local")).toMatchObject({
      ok: false,
      error: { returnCode: 1401 },
    });
    expect(await stores.sessions.deleteForUser("ann@example.com")).toBe(0);
    expect((await auth.login("ann@example.com", "a-new-password-1", "local")).ok).toBe(true);
  });

  it("[SES-13] a login checked while its user was disabled leaves no session", async () => {
    let users: UsersService | null = null;
    const { auth, stores, ...rest } = await withHasher(
      hasherWith(async () => users?.setDisabled("ann@example.com", true)),
    );
    users = rest.users;
    expect(await auth.login("ann@example.com", "ann-password", "local")).toMatchObject({
      ok: false,
      error: { returnCode: 1469 },
    });
    expect(await stores.sessions.deleteForUser("ann@example.com")).toBe(0);
  });

  it("[DEC-AUT-02] a key revoked while the attempt using it was checked mints no token", async () => {
    let users: UsersService | null = null;
    const { auth, ...rest } = await withHasher(
      hasherWith(async () => users?.revokeApiKey("ann@example.com", "ann-key")),
    );
    users = rest.users;
    expect(await auth.issueToken("ann@example.com", "ann-api-key", "local")).toMatchObject({
      ok: false,
      error: { returnCode: 1401 },
    });
  });
});

describe("AuthService: attempts the service could not check, and names no user can have", () => {
  it("[DEC-SES-01] a login turned away because the hasher is busy does not count as a failure", async () => {
    const stores = createMemoryStores();
    const clock = manualClock();
    await seed(stores, clock.now());
    let busy = true;
    const hasher: SecretHasher = {
      hash: fakeHasher.hash,
      verify: async (secret, hash) => {
        if (busy) throw new ServiceBusyError("too many hashes in flight");
        return fakeHasher.verify(secret, hash);
      },
    };
    const auth = new AuthService({ stores, hasher, ids: cryptoIds, clock, limits: defaultLimits });
    for (let round = 0; round < 6; round += 1)
      await expect(auth.login("ann@example.com", "ann-password", "local")).rejects.toThrow(ServiceBusyError);
    expect(JSON.parse((await stores.lockouts.read("password", "ann@example.com"))?.state ?? "{}")).toMatchObject({
      failures: [],
      lockedUntil: null,
    });
    busy = false;
    expect((await auth.login("ann@example.com", "ann-password", "local")).ok).toBe(true);
  });

  it("the client address of a login or a token request reaches the hasher, for its fair share of the queue", async () => {
    const stores = createMemoryStores();
    const clock = manualClock();
    await seed(stores, clock.now());
    const sources: Array<string | undefined> = [];
    const hasher: SecretHasher = {
      hash: fakeHasher.hash,
      verify: async (secret, hash, source) => {
        sources.push(source);
        return fakeHasher.verify(secret, hash);
      },
    };
    const auth = new AuthService({ stores, hasher, ids: cryptoIds, clock, limits: defaultLimits });
    await auth.login("ann@example.com", "ann-password", "198.51.100.1");
    await auth.login("nobody@example.com", "x", "198.51.100.2");
    await auth.issueToken("ann@example.com", "ann-api-key", "198.51.100.3");
    await auth.issueToken("gus@example.com", "no-key", "198.51.100.4");
    expect(sources).toEqual(["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"]);
  });

  it("[SES-08] a user name longer than any e-mail address is refused without a lockout record", async () => {
    const { auth, stores } = await setup();
    const long = `${"x".repeat(300)}@example.com`;
    expect(await auth.login(long, "whatever", "local")).toMatchObject({ ok: false, error: { returnCode: 1401 } });
    expect(await auth.issueToken(long, "whatever", "local")).toMatchObject({ ok: false, error: { returnCode: 1401 } });
    expect(await stores.lockouts.read("password", long.toLowerCase())).toBeNull();
    expect(await stores.lockouts.read("api-key", long.toLowerCase())).toBeNull();
  });
});

describe("AuthService: login and sessions", () => {
  it("[SES-02, DEC-SES-02] a login gives a cookie and a utk of at least 128 random bits, stored only as hashes", async () => {
    const { auth, stores } = await setup();
    const session = await auth.login("ann@example.com", "ann-password", "local");
    if (!session.ok) throw new Error(session.error.message);
    expect(Buffer.from(session.value.cookie, "base64url").length).toBeGreaterThanOrEqual(16);
    expect(Buffer.from(session.value.utk, "base64url").length).toBeGreaterThanOrEqual(16);
    const found = await auth.authenticateSession(session.value.cookie, session.value.utk);
    expect(found.ok && found.value.email).toBe("ann@example.com");
    const stored = JSON.stringify(
      await stores.sessions.findByCookieHash(
        (await import("node:crypto")).createHash("sha256").update(session.value.cookie).digest("hex"),
      ),
    );
    expect(stored).not.toContain(session.value.cookie);
    expect(stored).not.toContain(session.value.utk);
  });

  it("[DEC-SES-02] every login is a new session; the utk of one does not open another", async () => {
    const { auth } = await setup();
    const first = await auth.login("ann@example.com", "ann-password", "local");
    const second = await auth.login("ann@example.com", "ann-password", "local");
    if (!first.ok || !second.ok) throw new Error("login failed");
    expect(first.value.cookie).not.toBe(second.value.cookie);
    expect((await auth.authenticateSession(first.value.cookie, second.value.utk)).ok).toBe(false);
  });

  it("[SES-08] a wrong password, an unknown user and a missing field are 1401", async () => {
    const { auth } = await setup();
    for (const [user, password] of [
      ["ann@example.com", "nope"],
      ["who@example.com", "ann-password"],
      ["ann@example.com", undefined],
      [undefined, "x"],
    ] as const) {
      const result = await auth.login(user, password, "local");
      expect(result.ok ? 0 : result.error.returnCode).toBe(1401);
    }
  });

  it("[SES-10, DEC-SES-04] a user without grants, or disabled, is 1469 with the login wording", async () => {
    const { auth, users } = await setup();
    const loginWording = "Although the user is authenticated, the request is denied due of lack of proper permissions";
    const result = await auth.login("nog@example.com", "nog-password", "local");
    expect(result.ok ? null : [result.error.returnCode, result.error.message]).toEqual([1469, loginWording]);
    await users.setDisabled("ann@example.com", true);
    const disabled = await auth.login("ann@example.com", "ann-password", "local");
    expect(disabled.ok ? null : [disabled.error.returnCode, disabled.error.message]).toEqual([1469, loginWording]);
  });

  it("[SES-12] a session ends after 30 idle minutes, counted from the last use, and after 12 hours in all", async () => {
    const { auth, clock } = await setup();
    const session = await auth.login("ann@example.com", "ann-password", "local");
    if (!session.ok) throw new Error("login failed");
    const use = () => auth.authenticateSession(session.value.cookie, session.value.utk);
    // Used every 20 minutes (never idle for 30): live until 12 hours after login, refused from then on.
    for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
      clock.advance(20 * 60_000);
      expect((await use()).ok).toBe(true);
    }
    clock.advance(19 * 60_000);
    expect((await use()).ok).toBe(true);
    clock.advance(60_000);
    expect((await use()).ok).toBe(false);

    const idle = await auth.login("ann@example.com", "ann-password", "local");
    if (!idle.ok) throw new Error("login failed");
    clock.advance(59_000);
    expect((await auth.authenticateSession(idle.value.cookie, idle.value.utk)).ok).toBe(true);
    clock.advance(29 * 60_000 + 59_000);
    expect((await auth.authenticateSession(idle.value.cookie, idle.value.utk)).ok).toBe(true);
    clock.advance(30 * 60_000);
    expect((await auth.authenticateSession(idle.value.cookie, idle.value.utk)).ok).toBe(false);
  });

  it("[SES-11] logout ends the session and its utk", async () => {
    const { auth } = await setup();
    const session = await auth.login("ann@example.com", "ann-password", "local");
    if (!session.ok) throw new Error("login failed");
    expect((await auth.logout(session.value.cookie)).ok).toBe(true);
    expect((await auth.authenticateSession(session.value.cookie, session.value.utk)).ok).toBe(false);
    expect((await auth.logout(session.value.cookie)).ok).toBe(false);
  });

  it("a password reset or disabling ends the user's sessions", async () => {
    const { auth, users } = await setup();
    const session = await auth.login("ann@example.com", "ann-password", "local");
    if (!session.ok) throw new Error("login failed");
    await users.resetPassword("ann@example.com", "new-password-1");
    expect((await auth.authenticateSession(session.value.cookie, session.value.utk)).ok).toBe(false);
    const second = await auth.login("ann@example.com", "new-password-1", "local");
    if (!second.ok) throw new Error("login failed");
    await users.setDisabled("ann@example.com", true);
    await users.setDisabled("ann@example.com", false);
    expect((await auth.authenticateSession(second.value.cookie, second.value.utk)).ok).toBe(false);
  });
});

describe("AuthService: lockout (DEC-SES-01)", () => {
  it("unknown usernames are counted and answered exactly like known ones", async () => {
    const { auth } = await setup();
    const codes = [];
    for (let i = 0; i < 6; i += 1) {
      const result = await auth.login("nobody@example.com", "x", "local");
      codes.push(result.ok ? 200 : result.error.returnCode);
    }
    expect(codes).toEqual([1401, 1401, 1401, 1401, 1401, 1402]);
  });

  it("50 parallel wrong attempts check at most 5 passwords: 5 answer 1401 and 45 answer 1402", async () => {
    const { auth } = await setup();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => auth.login("ann@example.com", "wrong", "local")),
    );
    const codes = results.map((result) => (result.ok ? 200 : result.error.returnCode));
    expect(codes.filter((code) => code === 1401)).toHaveLength(5);
    expect(codes.filter((code) => code === 1402)).toHaveLength(45);
  });

  it("[SES-09, DEC-SES-01] 12 parallel logins with the right password all succeed: those beyond the limit wait for the ones in flight, none is refused", async () => {
    const stores = createMemoryStores();
    const clock = manualClock();
    await seed(stores, clock.now());
    // A check that takes time, as argon2id does, so that the attempts are really in flight together.
    const hasher: SecretHasher = {
      hash: fakeHasher.hash,
      verify: async (secret, hash) => {
        await Bun.sleep(20);
        return fakeHasher.verify(secret, hash);
      },
    };
    const auth = new AuthService({ stores, hasher, ids: cryptoIds, clock, limits: defaultLimits });
    const results = await Promise.all(
      Array.from({ length: 12 }, () => auth.login("ann@example.com", "ann-password", "local")),
    );
    expect(results.map((result) => (result.ok ? 200 : result.error.returnCode))).toEqual(Array(12).fill(200));
    const tokens = await Promise.all(
      Array.from({ length: 12 }, () => auth.issueToken("ann@example.com", "ann-api-key", "local")),
    );
    expect(tokens.map((result) => (result.ok ? 200 : result.error.returnCode))).toEqual(Array(12).fill(200));
  });

  it("[SES-09, DEC-SES-01] four failures, then two right passwords at once: both succeed", async () => {
    const { auth } = await setup();
    for (let i = 0; i < 4; i += 1) await auth.login("ann@example.com", "wrong", "local");
    const both = await Promise.all([
      auth.login("ann@example.com", "ann-password", "local"),
      auth.login("ann@example.com", "ann-password", "local"),
    ]);
    expect(both.map((result) => result.ok)).toEqual([true, true]);
  });

  it("the password lockout and the API key lockout are separate; a locked key login refuses wrong keys (1402) and takes the right one (DEC-AUT-01)", async () => {
    const { auth } = await setup();
    for (let i = 0; i < 5; i += 1) await auth.issueToken("ann@example.com", "wrong-key", "local");
    const locked = await auth.issueToken("ann@example.com", "wrong-key", "local");
    expect(locked.ok ? 0 : locked.error.returnCode).toBe(1402);
    expect((await auth.issueToken("ann@example.com", "ann-api-key", "local")).ok).toBe(true);
    expect((await auth.login("ann@example.com", "ann-password", "local")).ok).toBe(true);
  });

  it("holds across two service instances on one libSQL file (two processes, one database)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-lockout-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const url = `file:${join(dir, "shared.db")}`;
    const first = await openLibsqlStores({ url });
    const second = await openLibsqlStores({ url });
    cleanups.push(
      () => first.close(),
      () => second.close(),
    );
    const a = await setup(first);
    const b = new AuthService({
      stores: second,
      hasher: fakeHasher,
      ids: cryptoIds,
      clock: a.clock,
      limits: defaultLimits,
    });
    const answers = [];
    for (let i = 0; i < 6; i += 1) {
      const result = await (i % 2 === 0 ? a.auth : b).login("ann@example.com", "wrong", "local");
      answers.push(result.ok ? 200 : result.error.returnCode);
    }
    expect(answers).toEqual([1401, 1401, 1401, 1401, 1401, 1402]);
    const right = await b.login("ann@example.com", "ann-password", "local");
    expect(right.ok ? 200 : right.error.returnCode).toBe(1402);
  });
});

describe("AuthService: lockout records and the session janitor (DEC-SES-01, DEC-AUT-01)", () => {
  const minute = 60_000;

  for (const [name, open] of [
    ["memory", async () => createMemoryStores()],
    ["libsql", () => openLibsqlStores({ url: ":memory:" })],
  ] as const) {
    async function setupWithJanitor() {
      const stores = await open();
      cleanups.push(() => stores.close());
      const setUp = await setup(stores);
      const janitor = sessionJanitor({
        sessions: stores.sessions,
        lockouts: stores.lockouts,
        clock: setUp.clock,
        policy: { idleMs: 30 * minute, absoluteMs: 12 * 60 * minute },
      });
      return { ...setUp, sweep: () => janitor.runDue(setUp.clock.now()) };
    }

    it(`[DEC-SES-01] a locked account stays locked through janitor runs until its lock ends, then its record goes (${name})`, async () => {
      const { auth, clock, stores, sweep } = await setupWithJanitor();
      for (let i = 0; i < 5; i += 1) await auth.login("ann@example.com", "wrong", "local");
      // A janitor run every minute of the lock, the last one a millisecond before it ends.
      clock.advance(minute - 1);
      for (let run = 1; run <= 10; run += 1) {
        expect(await sweep()).toBe(0);
        const refused = await auth.login("ann@example.com", "ann-password", "local");
        expect(refused.ok ? 200 : refused.error.returnCode).toBe(1402);
        if (run < 10) clock.advance(minute);
      }
      clock.advance(minute);
      expect(await sweep()).toBe(1);
      expect(await stores.lockouts.read("password", "ann@example.com")).toBeNull();
      expect((await auth.login("ann@example.com", "ann-password", "local")).ok).toBe(true);
    });

    it(`[DEC-SES-01, DEC-AUT-01] the records of made-up names go once their failures leave the window, not before (${name})`, async () => {
      const { auth, clock, stores, sweep } = await setupWithJanitor();
      for (let i = 0; i < 3; i += 1) await auth.login(`made-up-${i}@example.com`, "x", "local");
      await auth.issueToken("made-up-0@example.com", "x", "local");
      for (let i = 0; i < 4; i += 1) await auth.login("ann@example.com", "wrong", "local");
      clock.advance(10 * minute - 1);
      expect(await sweep()).toBe(0);
      // The 4 failures still count: one more locks the account.
      await auth.login("ann@example.com", "wrong", "local");
      const locked = await auth.login("ann@example.com", "ann-password", "local");
      expect(locked.ok ? 200 : locked.error.returnCode).toBe(1402);
      clock.advance(minute);
      expect(await sweep()).toBe(4);
      expect(await stores.lockouts.read("password", "made-up-0@example.com")).toBeNull();
      expect(await stores.lockouts.read("api-key", "made-up-0@example.com")).toBeNull();
      expect(await stores.lockouts.read("password", "ann@example.com")).not.toBeNull();
    });
  }
});

describe("AuthService: bearer tokens (AUT-01, AUT-02, DEC-AUT-01/02)", () => {
  it("a token from the API key opens v2 calls for 30 minutes of virtual time", async () => {
    const { auth, clock } = await setup();
    const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!issued.ok) throw new Error(issued.error.message);
    const claims = JSON.parse(
      Buffer.from(issued.value.token.split(".")[1] as string, "base64url").toString(),
    ) as Record<string, number | string>;
    expect(claims.sub).toBe("ann@example.com");
    expect(Number(claims.exp) - Number(claims.iat)).toBe(1800);
    expect(claims.nbf).toBe(claims.iat);
    expect((await auth.authenticateBearer(`Bearer ${issued.value.token}`)).ok).toBe(true);
    clock.advance(29 * 60_000);
    expect((await auth.authenticateBearer(`Bearer ${issued.value.token}`)).ok).toBe(true);
    clock.advance(2 * 60_000);
    expect((await auth.authenticateBearer(`Bearer ${issued.value.token}`)).ok).toBe(false);
  });

  it("the API key itself, a forged token and a missing header are refused with 1401", async () => {
    const { auth } = await setup();
    const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!issued.ok) throw new Error("no token");
    const [header, payload] = issued.value.token.split(".");
    const forgedPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload as string, "base64url").toString()), sub: "gus@example.com" }),
    ).toString("base64url");
    for (const authorization of [
      "Bearer ann-api-key",
      `Bearer ${header}.${forgedPayload}.AAAA`,
      `Bearer ${header}.${payload}.`,
      undefined,
      "Basic abc",
      `bearer ${issued.value.token}x`,
    ]) {
      const result = await auth.authenticateBearer(authorization);
      expect(result.ok ? 0 : result.error.returnCode).toBe(1401);
    }
  });

  it("a user without a key, or a wrong key, is 1401; a revoked key stops at once but its tokens live on", async () => {
    const { auth, users } = await setup();
    expect((await auth.issueToken("gus@example.com", "anything", "local")).ok).toBe(false);
    const before = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!before.ok) throw new Error("no token");
    await users.revokeApiKey("ann@example.com", "ann-key");
    const after = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    expect(after.ok ? 0 : after.error.returnCode).toBe(1401);
    expect((await auth.authenticateBearer(`Bearer ${before.value.token}`)).ok).toBe(true);
  });

  it("tokens made by one node are accepted by another on the same store", async () => {
    const { auth, stores, clock } = await setup();
    const other = new AuthService({ stores, hasher: fakeHasher, ids: cryptoIds, clock, limits: defaultLimits });
    const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!issued.ok) throw new Error("no token");
    expect((await other.authenticateBearer(`Bearer ${issued.value.token}`)).ok).toBe(true);
  });
});

describe("AuthService: the hash checks of a token request (DEC-AUT-01)", () => {
  async function counting() {
    const checked: string[] = [];
    const hasher: SecretHasher = {
      hash: fakeHasher.hash,
      verify: async (secret, hash) => {
        checked.push(hash);
        return fakeHasher.verify(secret, hash);
      },
    };
    const stores = createMemoryStores();
    const clock = manualClock();
    await seed(stores, clock.now());
    const deps = { stores, hasher, ids: cryptoIds, clock, limits: defaultLimits };
    return { checked, auth: new AuthService(deps), users: new UsersService(deps) };
  }

  it("an issued key costs one check however many keys its user holds, and a wrong key costs no more than a user of one key", async () => {
    const { checked, auth, users } = await counting();
    const issued: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const key = await users.issueApiKey("ann@example.com");
      if (!key.ok) throw new Error(key.error.message);
      issued.push(key.value.key);
    }
    expect(issued[7]).toMatch(/^svc_key-[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);

    checked.length = 0;
    expect((await auth.issueToken("ann@example.com", issued[7], "local")).ok).toBe(true);
    expect(checked).toHaveLength(1);

    // Wrong keys, of any shape: checked against ann's one key from before keys named themselves, as for a user of one key.
    // The last character changed (to one it is not: ending in A, as one key in sixteen does, it would be right).
    const otherEnd = issued[3]!.endsWith("A") ? "E" : "A";
    for (const wrong of [
      "wrong-key",
      `${issued[3]!.slice(0, -1)}${otherEnd}`,
      "svc_key-0000000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ]) {
      checked.length = 0;
      expect((await auth.issueToken("ann@example.com", wrong, "local")).ok).toBe(false);
      expect(checked).toHaveLength(1);
    }
    // A key issued before keys named their record still works.
    expect((await auth.issueToken("ann@example.com", "ann-api-key", "local")).ok).toBe(true);
  });

  it("a user with no keys but issued ones still costs one check for a wrong key (an unknown user too)", async () => {
    const { checked, auth, users } = await counting();
    for (let i = 0; i < 5; i += 1) await users.issueApiKey("gus@example.com");
    for (const user of ["gus@example.com", "nobody@example.com"]) {
      checked.length = 0;
      expect((await auth.issueToken(user, "wrong-key", "local")).ok).toBe(false);
      expect(checked).toHaveLength(1);
    }
  });
});

describe("AuthService: tenant access (AUT-03)", () => {
  it("a principal of one account never reaches another's profile", async () => {
    const { auth } = await setup();
    const gus = {
      email: "gus@example.com",
      grants: [{ account: "globex", profiles: ["main"] }],
      via: "session" as const,
    };
    expect(await auth.decideAccess(gus, "globex", "main")).toBe("granted");
    expect(await auth.decideAccess(gus, "acme", "main")).toBe("no-grant");
    expect(await auth.decideAccess(gus, "initech", "main")).toBe("unknown-account");
    expect(await auth.decideAccess(gus, "globex", "dev")).toBe("unknown-profile");
  });
});
