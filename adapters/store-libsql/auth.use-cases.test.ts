import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultLimits } from "../../core/config/config.model.ts";
import type { Stores } from "../../core/ports/stores.ts";
import {
  prefixHasher as fakeHasher,
  manualClock,
  seedSignInTenants as seed,
} from "../../core/session/auth.test-support.ts";
import { AuthService } from "../../core/session/auth.use-cases.ts";
import { sessionJanitor } from "../../core/session/session-janitor.worker.ts";
import { UsersService } from "../../core/session/users.use-cases.ts";
import { cryptoIds, nodeDigests } from "../runtime/crypto.ts";
import { hostEventLoop } from "../runtime/event-loop.ts";
import { joseTokenSigner } from "../runtime/jose-tokens.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { openLibsqlStores } from "./libsql.stores.ts";

// The sign-in use cases on the libSQL store: the lockout held by the database across two connections (two
// processes), and the lockout records with the session janitor's SQL. The rest of their tests run on the
// memory store in the core (core/session/auth.use-cases.test.ts).

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function authDeps(stores: Stores, clock: ReturnType<typeof manualClock>) {
  return {
    stores,
    hasher: fakeHasher,
    ids: cryptoIds,
    clock,
    limits: defaultLimits,
    digests: nodeDigests,
    tokens: joseTokenSigner,
    eventLoop: hostEventLoop,
  };
}

async function setup(stores: Stores = createMemoryStores()) {
  const clock = manualClock();
  await seed(stores, clock.now());
  const deps = authDeps(stores, clock);
  return { stores, clock, auth: new AuthService(deps), users: new UsersService(deps) };
}

describe("AuthService: lockout (DEC-SES-01)", () => {
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
    const b = new AuthService(authDeps(second, a.clock));
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
