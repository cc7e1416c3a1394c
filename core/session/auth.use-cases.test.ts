import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { hostEventLoop, manualClock, storesRefusingNul } from "../../testing/fakes.ts";
import {
  prefixHasher as fakeHasher,
  lockoutJanitorCases,
  seedSignInTenants as seed,
  signInDeps,
  signInSetup,
  tokenEndingCases,
} from "../../testing/session/auth.ts";
import { type ManagementError, ServiceBusyError } from "../errors/index.ts";
import type { Digests, IdSource, SecretHasher, Stores, TokenClaims, TokenSigner } from "../ports/index.ts";
import type { Result } from "../result.ts";
import { AuthService } from "./auth.use-cases.ts";
import { UsersService } from "./users.use-cases.ts";

// The runtime the use case is handed, from the web-standard APIs that Bun and Deno both have.

const randomBytes = (count: number) => crypto.getRandomValues(new Uint8Array(count));
const hexOf = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
const base64url = (text: string) => btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const fromBase64url = (text: string) => atob(text.replaceAll("-", "+").replaceAll("_", "/"));

const ids: IdSource = {
  randomHex: (bytes) => hexOf(randomBytes(bytes)),
  randomToken: (bytes) => base64url(String.fromCharCode(...randomBytes(bytes))),
  randomUnit: () => (randomBytes(1)[0] ?? 0) / 256,
};

async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : Uint8Array.from(data);
  return hexOf(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

const digests: Digests = { sha256Hex };

/** FNV-1a of a text, as hex: the fake signer's signature, which binds the claims to the secret. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/**
 * A token signer that stands in for the JWT one (whose own tests, with jose, are in adapters/runtime): a token is
 * its claims as base64url JSON and a checksum of them under the secret, so that changing the claims, or checking
 * with another secret, refuses it; it holds from its notBefore, to its expiry (excluded) as JWT does.
 */
const tokens: TokenSigner = {
  async sign(claims, secret) {
    const payload = base64url(JSON.stringify(claims));
    return `${payload}.${fnv1a(`${payload}\u0000${secret}`)}`;
  },
  async verify(token, secret, expected) {
    const [payload, signature, ...rest] = token.split(".");
    if (payload === undefined || rest.length > 0 || signature !== fnv1a(`${payload}\u0000${secret}`)) return null;
    try {
      const claims = JSON.parse(fromBase64url(payload)) as TokenClaims;
      const now = Math.floor(expected.nowMs / 1000);
      if (claims.issuer !== expected.issuer || typeof claims.subject !== "string") return null;
      if (typeof claims.issuedAt !== "number" || typeof claims.expiresAt !== "number") return null;
      if (claims.notBefore > now || claims.expiresAt <= now) return null;
      return { subject: claims.subject, issuedAt: claims.issuedAt, generation: claims.generation ?? null };
    } catch {
      return null;
    }
  },
};

/** The host's side of the sign-in use cases, from the web-standard APIs above and the host's event loop. */
const host = { ids, digests, tokens, eventLoop: hostEventLoop };

function authDeps(stores: Stores, clock: ReturnType<typeof manualClock>, hasher: SecretHasher = fakeHasher) {
  return signInDeps(stores, clock, host, hasher);
}

/** The fields of a result a refusal is told by: whether it succeeded, and if not its returnCode. */
function outcomeOf(result: Result<unknown, ManagementError>) {
  return result.ok ? { ok: true } : { ok: false, error: { returnCode: result.error.returnCode } };
}

function setup(stores: Stores = createMemoryStores()) {
  return signInSetup(stores, host);
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
    const users = new UsersService({ stores, hasher: fakeHasher, ids, clock });
    return { stores, users, auth: new AuthService(authDeps(stores, clock, hasher)) };
  }

  it("[SES-13] a login with the old password that was checked while a reset committed leaves no session", async () => {
    let users: UsersService | null = null;
    const { auth, stores, ...rest } = await withHasher(
      hasherWith(async () => users?.resetPassword("ann@example.com", "a-new-password-1")),
    );
    users = rest.users;
    assert.deepEqual(outcomeOf(await auth.login("ann@example.com", "ann-password", "local")), {
      ok: false,
      error: { returnCode: 1401 },
    });
    assert.equal(await stores.sessions.deleteForUser("ann@example.com"), 0);
    assert.equal((await auth.login("ann@example.com", "a-new-password-1", "local")).ok, true);
  });

  it("[SES-13] a login checked while its user was disabled leaves no session", async () => {
    let users: UsersService | null = null;
    const { auth, stores, ...rest } = await withHasher(
      hasherWith(async () => users?.setDisabled("ann@example.com", true)),
    );
    users = rest.users;
    assert.deepEqual(outcomeOf(await auth.login("ann@example.com", "ann-password", "local")), {
      ok: false,
      error: { returnCode: 1469 },
    });
    assert.equal(await stores.sessions.deleteForUser("ann@example.com"), 0);
  });

  it("[DEC-AUT-02] a key revoked while the attempt using it was checked mints no token", async () => {
    let users: UsersService | null = null;
    const { auth, ...rest } = await withHasher(
      hasherWith(async () => users?.revokeApiKey("ann@example.com", "ann-key")),
    );
    users = rest.users;
    assert.deepEqual(outcomeOf(await auth.issueToken("ann@example.com", "ann-api-key", "local")), {
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
    const auth = new AuthService(authDeps(stores, clock, hasher));
    for (let round = 0; round < 6; round += 1)
      await assert.rejects(auth.login("ann@example.com", "ann-password", "local"), ServiceBusyError);
    const state = JSON.parse((await stores.lockouts.read("password", "ann@example.com"))?.state ?? "{}");
    assert.deepEqual({ failures: state.failures, lockedUntil: state.lockedUntil }, { failures: [], lockedUntil: null });
    busy = false;
    assert.equal((await auth.login("ann@example.com", "ann-password", "local")).ok, true);
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
    const auth = new AuthService(authDeps(stores, clock, hasher));
    await auth.login("ann@example.com", "ann-password", "198.51.100.1");
    await auth.login("nobody@example.com", "x", "198.51.100.2");
    await auth.issueToken("ann@example.com", "ann-api-key", "198.51.100.3");
    await auth.issueToken("gus@example.com", "no-key", "198.51.100.4");
    assert.deepEqual(sources, ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"]);
  });

  it("[SES-08] a user name longer than any e-mail address is refused without a lockout record", async () => {
    const { auth, stores } = await setup();
    const long = `${"x".repeat(300)}@example.com`;
    assert.deepEqual(outcomeOf(await auth.login(long, "whatever", "local")), {
      ok: false,
      error: { returnCode: 1401 },
    });
    assert.deepEqual(outcomeOf(await auth.issueToken(long, "whatever", "local")), {
      ok: false,
      error: { returnCode: 1401 },
    });
    assert.equal(await stores.lockouts.read("password", long.toLowerCase()), null);
    assert.equal(await stores.lockouts.read("api-key", long.toLowerCase()), null);
  });
});

describe("names holding U+0000, which no store keeps (second probe, finding 4)", () => {
  it("a login or a token request for one is 1401, checked against no hash and counted nowhere, and asks no store", async () => {
    const stores = storesRefusingNul(createMemoryStores());
    const { clock } = await setup(stores);
    let checks = 0;
    const countingHasher: SecretHasher = {
      hash: fakeHasher.hash,
      verify: (secret, hash) => {
        checks += 1;
        return fakeHasher.verify(secret, hash);
      },
    };
    const auth = new AuthService(authDeps(stores, clock, countingHasher));
    for (const name of ["\u0000", "ann@example.com\u0000", "ann@example.com\u0000x"]) {
      for (let attempt = 0; attempt < 6; attempt += 1) {
        assert.deepEqual(outcomeOf(await auth.login(name, "ann-password", "local")), {
          ok: false,
          error: { returnCode: 1401 },
        });
        assert.deepEqual(outcomeOf(await auth.issueToken(name, "ann-api-key", "local")), {
          ok: false,
          error: { returnCode: 1401 },
        });
      }
    }
    assert.deepEqual(stores.asked, []);
    assert.equal(checks, 0);
    // ann herself is not locked by them.
    assert.equal((await auth.login("ann@example.com", "ann-password", "local")).ok, true);
  });

  it("an account or a profile holding one is unknown, and no store is asked", async () => {
    const stores = storesRefusingNul(createMemoryStores());
    const { auth } = await setup(stores);
    const ann = {
      email: "ann@example.com",
      grants: [{ account: "acme", profiles: "*" as const }],
      via: "token" as const,
    };
    assert.equal(await auth.decideAccess(ann, "acme\u0000", "main"), "unknown-account");
    assert.equal(await auth.decideAccess(ann, "acme", "main\u0000"), "unknown-profile");
    assert.deepEqual(stores.asked, []);
  });

  it("the admin API's user, key and grant of one are not found, and no store is asked", async () => {
    const stores = storesRefusingNul(createMemoryStores());
    const { users } = await setup(stores);
    const returnCodeOf = (result: Result<unknown, ManagementError>) => (result.ok ? 200 : result.error.returnCode);
    assert.equal(returnCodeOf(await users.get("ann@example.com\u0000")), 1404);
    assert.equal(returnCodeOf(await users.unlock("ann@example.com\u0000")), 1404);
    assert.equal(returnCodeOf(await users.setDisabled("ann@example.com\u0000", true)), 1404);
    assert.equal(returnCodeOf(await users.listApiKeys("ann@example.com\u0000")), 1404);
    assert.equal(returnCodeOf(await users.issueApiKey("ann@example.com\u0000")), 1404);
    assert.equal(returnCodeOf(await users.revokeApiKey("ann@example.com", "ann-key\u0000")), 1404);
    assert.equal(
      returnCodeOf(await users.setGrants("gus@example.com", [{ account: "acme\u0000", profiles: "*" }])),
      1400,
    );
    assert.equal(
      returnCodeOf(await users.setGrants("gus@example.com", [{ account: "acme", profiles: ["main\u0000"] }])),
      1400,
    );
    assert.deepEqual(stores.asked, []);
    assert.equal((await users.get("ann@example.com")).ok, true);
  });
});

describe("AuthService: a flood of attempts from one client address (second probe, finding 2)", () => {
  const flooder = "198.51.100.1";

  /**
   * The sign-in services with a hasher that holds every check of the flooding address until released, a count
   * of the store's lockout reads, and an event loop whose monotonic time the test moves.
   */
  async function floodSetup() {
    const stores = createMemoryStores();
    const clock = manualClock();
    await seed(stores, clock.now());
    const held: Array<() => void> = [];
    const hasher: SecretHasher = {
      hash: fakeHasher.hash,
      verify: async (secret, hash, source) => {
        if (source === flooder) await new Promise<void>((resolve) => held.push(resolve));
        return fakeHasher.verify(secret, hash);
      },
    };
    /** The names whose lockout state was read, in order. */
    const namesRead: string[] = [];
    const lockouts = stores.lockouts;
    const counted: Stores = {
      ...stores,
      lockouts: {
        read: (kind, name) => {
          namesRead.push(name);
          return lockouts.read(kind, name);
        },
        compareAndSet: (...args) => lockouts.compareAndSet(...args),
        deleteExpired: (before) => lockouts.deleteExpired(before),
      },
    };
    let monotonic = 0;
    const eventLoop = { ...hostEventLoop, monotonicMs: () => monotonic };
    const auth = new AuthService({ ...authDeps(counted, clock, hasher), eventLoop });
    const flood = (count: number, prefix = "made-up") =>
      Array.from({ length: count }, (_, index) =>
        auth.login(`${prefix}-${index}@example.com`, "wrong", flooder).then(
          (result) => (result.ok ? 200 : result.error.returnCode),
          (error: unknown) => (error instanceof ServiceBusyError ? 1503 : 500),
        ),
      );
    /** Lets every attempt run until it waits for the hasher or for its turn. */
    const settle = async () => {
      for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setTimeout(resolve, 0));
    };
    /** Releases the held checks, and those of the attempts that get their turn after them, until `attempts` end. */
    const drain = async <T>(attempts: Array<Promise<T>>): Promise<T[]> => {
      let ended = false;
      const all = Promise.all(attempts).finally(() => (ended = true));
      while (!ended) {
        for (const release of held.splice(0)) release();
        await settle();
      }
      return all;
    };
    return {
      auth,
      flood,
      settle,
      drain,
      held,
      namesRead,
      advanceMonotonic: (ms: number) => (monotonic += ms),
    };
  }

  it("8 of one address's attempts are worked on at once; the others wait their turn without reading the store, and another address's login is not held behind them", async () => {
    const { auth, flood, settle, drain, held, namesRead } = await floodSetup();
    const codes = flood(20);
    await settle();
    assert.equal(held.length, 8);
    assert.equal(namesRead.length, 8);
    assert.equal((await auth.login("ann@example.com", "ann-password", "203.0.113.7")).ok, true);
    // Each attempt that ends lets the next of the address in.
    assert.deepEqual(await drain(codes), Array(20).fill(1401));
  });

  it("past its 256 waiting, an attempt of the address is answered busy at once, before it reads the store", async () => {
    const { flood, settle, drain, namesRead } = await floodSetup();
    const inLine = flood(8 + 256);
    await settle();
    assert.equal(await flood(1, "past-the-line")[0], 1503);
    assert.equal(namesRead.includes("past-the-line-0@example.com"), false);
    assert.deepEqual(await drain(inLine), Array(8 + 256).fill(1401));
  });

  it("an attempt that waited its turn more than 10 s is answered busy when its turn comes, without reading the store", async () => {
    const { flood, settle, drain, held, namesRead, advanceMonotonic } = await floodSetup();
    const inTurn = flood(8);
    await settle();
    const [late] = flood(1, "late");
    await settle();
    advanceMonotonic(10_001);
    held.shift()?.();
    assert.equal(await late, 1503);
    await settle();
    assert.equal(namesRead.includes("late-0@example.com"), false);
    assert.deepEqual(await drain(inTurn), Array(8).fill(1401));
  });
});

describe("AuthService: login and sessions", () => {
  it("[SES-02, DEC-SES-02] a login gives a cookie and a utk of at least 128 random bits, stored only as hashes", async () => {
    const { auth, stores } = await setup();
    const session = await auth.login("ann@example.com", "ann-password", "local");
    if (!session.ok) throw new Error(session.error.message);
    assert.ok(fromBase64url(session.value.cookie).length >= 16);
    assert.ok(fromBase64url(session.value.utk).length >= 16);
    const found = await auth.authenticateSession(session.value.cookie, session.value.utk);
    assert.equal(found.ok && found.value.email, "ann@example.com");
    const cookieHash = hexOf(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(session.value.cookie))),
    );
    const stored = JSON.stringify(await stores.sessions.findByCookieHash(cookieHash));
    assert.notEqual(stored, "null");
    assert.equal(stored.includes(session.value.cookie), false);
    assert.equal(stored.includes(session.value.utk), false);
  });

  it("[DEC-SES-02] every login is a new session; the utk of one does not open another", async () => {
    const { auth } = await setup();
    const first = await auth.login("ann@example.com", "ann-password", "local");
    const second = await auth.login("ann@example.com", "ann-password", "local");
    if (!first.ok || !second.ok) throw new Error("login failed");
    assert.notEqual(first.value.cookie, second.value.cookie);
    assert.equal((await auth.authenticateSession(first.value.cookie, second.value.utk)).ok, false);
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
      assert.equal(result.ok ? 0 : result.error.returnCode, 1401);
    }
  });

  it("[SES-10, DEC-SES-04] a user without grants, or disabled, is 1469 with the login wording", async () => {
    const { auth, users } = await setup();
    const loginWording = "Although the user is authenticated, the request is denied due of lack of proper permissions";
    const result = await auth.login("nog@example.com", "nog-password", "local");
    assert.deepEqual(result.ok ? null : [result.error.returnCode, result.error.message], [1469, loginWording]);
    await users.setDisabled("ann@example.com", true);
    const disabled = await auth.login("ann@example.com", "ann-password", "local");
    assert.deepEqual(disabled.ok ? null : [disabled.error.returnCode, disabled.error.message], [1469, loginWording]);
  });

  it("[SES-12] a session ends after 30 idle minutes, counted from the last use, and after 12 hours in all", async () => {
    const { auth, clock } = await setup();
    const session = await auth.login("ann@example.com", "ann-password", "local");
    if (!session.ok) throw new Error("login failed");
    const use = () => auth.authenticateSession(session.value.cookie, session.value.utk);
    // Used every 20 minutes (never idle for 30): live until 12 hours after login, refused from then on.
    for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
      clock.advance(20 * 60_000);
      assert.equal((await use()).ok, true);
    }
    clock.advance(19 * 60_000);
    assert.equal((await use()).ok, true);
    clock.advance(60_000);
    assert.equal((await use()).ok, false);

    const idle = await auth.login("ann@example.com", "ann-password", "local");
    if (!idle.ok) throw new Error("login failed");
    clock.advance(59_000);
    assert.equal((await auth.authenticateSession(idle.value.cookie, idle.value.utk)).ok, true);
    clock.advance(29 * 60_000 + 59_000);
    assert.equal((await auth.authenticateSession(idle.value.cookie, idle.value.utk)).ok, true);
    clock.advance(30 * 60_000);
    assert.equal((await auth.authenticateSession(idle.value.cookie, idle.value.utk)).ok, false);
  });

  it("[SES-11] logout ends the session and its utk", async () => {
    const { auth } = await setup();
    const session = await auth.login("ann@example.com", "ann-password", "local");
    if (!session.ok) throw new Error("login failed");
    assert.equal((await auth.logout(session.value.cookie)).ok, true);
    assert.equal((await auth.authenticateSession(session.value.cookie, session.value.utk)).ok, false);
    assert.equal((await auth.logout(session.value.cookie)).ok, false);
  });

  it("a password reset or disabling ends the user's sessions", async () => {
    const { auth, users } = await setup();
    const session = await auth.login("ann@example.com", "ann-password", "local");
    if (!session.ok) throw new Error("login failed");
    await users.resetPassword("ann@example.com", "new-password-1");
    assert.equal((await auth.authenticateSession(session.value.cookie, session.value.utk)).ok, false);
    const second = await auth.login("ann@example.com", "new-password-1", "local");
    if (!second.ok) throw new Error("login failed");
    await users.setDisabled("ann@example.com", true);
    await users.setDisabled("ann@example.com", false);
    assert.equal((await auth.authenticateSession(second.value.cookie, second.value.utk)).ok, false);
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
    assert.deepEqual(codes, [1401, 1401, 1401, 1401, 1401, 1402]);
  });

  it("50 parallel wrong attempts check at most 5 passwords: 5 answer 1401 and 45 answer 1402", async () => {
    const { auth } = await setup();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => auth.login("ann@example.com", "wrong", "local")),
    );
    const codes = results.map((result) => (result.ok ? 200 : result.error.returnCode));
    assert.equal(codes.filter((code) => code === 1401).length, 5);
    assert.equal(codes.filter((code) => code === 1402).length, 45);
  });

  it("[SES-09, DEC-SES-01] 12 parallel logins with the right password all succeed: those beyond the limit wait for the ones in flight, none is refused", async () => {
    const stores = createMemoryStores();
    const clock = manualClock();
    await seed(stores, clock.now());
    // A check that takes time, as argon2id does, so that the attempts are really in flight together.
    const hasher: SecretHasher = {
      hash: fakeHasher.hash,
      verify: async (secret, hash) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return fakeHasher.verify(secret, hash);
      },
    };
    const auth = new AuthService(authDeps(stores, clock, hasher));
    const results = await Promise.all(
      Array.from({ length: 12 }, () => auth.login("ann@example.com", "ann-password", "local")),
    );
    assert.deepEqual(
      results.map((result) => (result.ok ? 200 : result.error.returnCode)),
      Array(12).fill(200),
    );
    const issued = await Promise.all(
      Array.from({ length: 12 }, () => auth.issueToken("ann@example.com", "ann-api-key", "local")),
    );
    assert.deepEqual(
      issued.map((result) => (result.ok ? 200 : result.error.returnCode)),
      Array(12).fill(200),
    );
  });

  it("[SES-09, DEC-SES-01] four failures, then two right passwords at once: both succeed", async () => {
    const { auth } = await setup();
    for (let i = 0; i < 4; i += 1) await auth.login("ann@example.com", "wrong", "local");
    const both = await Promise.all([
      auth.login("ann@example.com", "ann-password", "local"),
      auth.login("ann@example.com", "ann-password", "local"),
    ]);
    assert.deepEqual(
      both.map((result) => result.ok),
      [true, true],
    );
  });

  it("the password lockout and the API key lockout are separate; a locked key login refuses wrong keys (1402) and takes the right one (DEC-AUT-01)", async () => {
    const { auth } = await setup();
    for (let i = 0; i < 5; i += 1) await auth.issueToken("ann@example.com", "wrong-key", "local");
    const locked = await auth.issueToken("ann@example.com", "wrong-key", "local");
    assert.equal(locked.ok ? 0 : locked.error.returnCode, 1402);
    assert.equal((await auth.issueToken("ann@example.com", "ann-api-key", "local")).ok, true);
    assert.equal((await auth.login("ann@example.com", "ann-password", "local")).ok, true);
  });
});

// The same cases run on the libSQL store in adapters/store-libsql/auth.use-cases.test.ts.
describe("AuthService: lockout records and the session janitor (DEC-SES-01, DEC-AUT-01)", () => {
  for (const [name, run] of Object.entries(lockoutJanitorCases))
    it(`${name} (memory)`, () => run(createMemoryStores(), host));
});

// The same cases run on the libSQL and the PostgreSQL store in the adapters.
describe("AuthService: a password reset or a disabling ends the user's bearer tokens (second probe, finding 6)", () => {
  for (const [name, run] of Object.entries(tokenEndingCases))
    it(`${name} (memory)`, () => run(createMemoryStores(), host));
});

describe("AuthService: bearer tokens (AUT-01, AUT-02, DEC-AUT-01/02)", () => {
  it("a token from the API key opens v2 calls for 30 minutes of virtual time", async () => {
    const { auth, clock } = await setup();
    const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!issued.ok) throw new Error(issued.error.message);
    const claims = JSON.parse(fromBase64url(issued.value.token.split(".")[0] as string)) as TokenClaims;
    assert.equal(claims.subject, "ann@example.com");
    assert.equal(claims.expiresAt - claims.issuedAt, 1800);
    assert.equal(claims.notBefore, claims.issuedAt);
    assert.equal((await auth.authenticateBearer(`Bearer ${issued.value.token}`)).ok, true);
    clock.advance(29 * 60_000);
    assert.equal((await auth.authenticateBearer(`Bearer ${issued.value.token}`)).ok, true);
    clock.advance(2 * 60_000);
    assert.equal((await auth.authenticateBearer(`Bearer ${issued.value.token}`)).ok, false);
  });

  it("the API key itself, a forged token and a missing header are refused with 1401", async () => {
    const { auth } = await setup();
    const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!issued.ok) throw new Error("no token");
    const [payload, signature] = issued.value.token.split(".");
    const forgedPayload = base64url(
      JSON.stringify({ ...JSON.parse(fromBase64url(payload as string)), subject: "gus@example.com" }),
    );
    for (const authorization of [
      "Bearer ann-api-key",
      `Bearer ${forgedPayload}.${signature}`,
      `Bearer ${payload}.`,
      undefined,
      "Basic abc",
      `bearer ${issued.value.token}x`,
    ]) {
      const result = await auth.authenticateBearer(authorization);
      assert.equal(result.ok ? 0 : result.error.returnCode, 1401);
    }
  });

  it("a user without a key, or a wrong key, is 1401; a revoked key stops at once but its tokens live on", async () => {
    const { auth, users } = await setup();
    assert.equal((await auth.issueToken("gus@example.com", "anything", "local")).ok, false);
    const before = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!before.ok) throw new Error("no token");
    await users.revokeApiKey("ann@example.com", "ann-key");
    const after = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    assert.equal(after.ok ? 0 : after.error.returnCode, 1401);
    assert.equal((await auth.authenticateBearer(`Bearer ${before.value.token}`)).ok, true);
  });

  it("tokens made by one node are accepted by another on the same store", async () => {
    const { auth, stores, clock } = await setup();
    const other = new AuthService(authDeps(stores, clock));
    const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!issued.ok) throw new Error("no token");
    assert.equal((await other.authenticateBearer(`Bearer ${issued.value.token}`)).ok, true);
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
    const deps = authDeps(stores, clock, hasher);
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
    assert.match(issued[7] as string, /^svc_key-[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);

    checked.length = 0;
    assert.equal((await auth.issueToken("ann@example.com", issued[7], "local")).ok, true);
    assert.equal(checked.length, 1);

    // Wrong keys, of any shape: checked against ann's one key from before keys named themselves, as for a user of one key.
    // The last character changed (to one it is not: ending in A, as one key in sixteen does, it would be right).
    const otherEnd = issued[3]!.endsWith("A") ? "E" : "A";
    for (const wrong of [
      "wrong-key",
      `${issued[3]!.slice(0, -1)}${otherEnd}`,
      "svc_key-0000000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ]) {
      checked.length = 0;
      assert.equal((await auth.issueToken("ann@example.com", wrong, "local")).ok, false);
      assert.equal(checked.length, 1);
    }
    // A key issued before keys named their record still works.
    assert.equal((await auth.issueToken("ann@example.com", "ann-api-key", "local")).ok, true);
  });

  it("a user with no keys but issued ones still costs one check for a wrong key (an unknown user too)", async () => {
    const { checked, auth, users } = await counting();
    for (let i = 0; i < 5; i += 1) await users.issueApiKey("gus@example.com");
    for (const user of ["gus@example.com", "nobody@example.com"]) {
      checked.length = 0;
      assert.equal((await auth.issueToken(user, "wrong-key", "local")).ok, false);
      assert.equal(checked.length, 1);
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
    assert.equal(await auth.decideAccess(gus, "globex", "main"), "granted");
    assert.equal(await auth.decideAccess(gus, "acme", "main"), "no-grant");
    assert.equal(await auth.decideAccess(gus, "initech", "main"), "unknown-account");
    assert.equal(await auth.decideAccess(gus, "globex", "dev"), "unknown-profile");
  });
});
