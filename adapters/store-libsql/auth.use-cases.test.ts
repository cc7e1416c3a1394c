import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuthService } from "../../core/session/index.ts";
import {
  lockoutJanitorCases,
  type SignInHost,
  signInDeps,
  signInSetup,
  tokenEndingCases,
} from "../../testing/session/auth.ts";
import { cryptoIds, nodeDigests } from "../runtime/crypto.ts";
import { hostEventLoop } from "../runtime/event-loop.ts";
import { joseTokenSigner } from "../runtime/jose-tokens.ts";
import { openLibsqlStores } from "./libsql.stores.ts";

// The sign-in use cases on the libSQL store: the lockout held by the database across two connections (two
// processes), and the lockout records with the session janitor's SQL. The rest of their tests run on the
// memory store in the core (core/session/auth.use-cases.test.ts).

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const host: SignInHost = { ids: cryptoIds, digests: nodeDigests, tokens: joseTokenSigner, eventLoop: hostEventLoop };

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
    const a = await signInSetup(first, host);
    const b = new AuthService(signInDeps(second, a.clock, host));
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

// The same cases run on the in-memory store in the core (core/session/auth.use-cases.test.ts).
describe("AuthService: lockout records and the session janitor (DEC-SES-01, DEC-AUT-01)", () => {
  for (const [name, run] of Object.entries(lockoutJanitorCases)) {
    it(`${name} (libsql)`, async () => {
      const stores = await openLibsqlStores({ url: ":memory:" });
      cleanups.push(() => stores.close());
      await run(stores, host);
    });
  }
});

// The same cases run on the in-memory store in the core, and on PostgreSQL's (postgres.stores.test.ts).
describe("AuthService: a password reset or a disabling ends the user's bearer tokens (second probe, finding 6)", () => {
  for (const [name, run] of Object.entries(tokenEndingCases)) {
    it(`${name} (libsql)`, async () => {
      const stores = await openLibsqlStores({ url: ":memory:" });
      cleanups.push(() => stores.close());
      await run(stores, host);
    });
  }
});
