import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import type { SessionRecord, Stores, UserRecord } from "../ports/index.ts";
import { sessionJanitor } from "./session-janitor.worker.ts";

const minute = 60_000;
const policy = { idleMs: 30 * minute, absoluteMs: 12 * 60 * minute };
const start = Date.UTC(2026, 10, 21);

const ann: UserRecord = {
  email: "ann@example.com",
  passwordHash: "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA",
  passwordSeed: null,
  disabled: false,
  grants: [{ account: "acme", profiles: "*" }],
  tokensValidAfter: null,
  createdAt: start,
  updatedAt: start,
};

function session(id: string, lastSeenAt: number): SessionRecord {
  return {
    id,
    userEmail: "ann@example.com",
    cookieHash: id.padEnd(64, "c"),
    utkHash: "u".repeat(64),
    createdAt: lastSeenAt,
    lastSeenAt,
  };
}

function janitorOf(stores: Stores) {
  return sessionJanitor({ sessions: stores.sessions, lockouts: stores.lockouts, clock: { now: () => start }, policy });
}

// The same cases run on the libSQL store in adapters/store-libsql/session-janitor.worker.test.ts.
describe("the session janitor (memory store)", () => {
  it("[DEC-SES-02] removes the sessions idle past the timeout, looking at most once a minute", async () => {
    const stores: Stores = createMemoryStores();
    await stores.tenancy.putUser(ann);
    await stores.sessions.create(session("idle", start), 50);
    await stores.sessions.create(session("used", start + 90_000), 50);
    const janitor = janitorOf(stores);
    assert.equal(await janitor.runDue(start + 31 * minute), 1);
    assert.equal(await stores.sessions.findByCookieHash(session("idle", start).cookieHash), null);
    // "used" has been idle for 30 minutes from 31:30 on, but the last look was less than a minute ago.
    assert.equal(await janitor.runDue(start + 32 * minute - 1), 0);
    assert.equal(await janitor.runDue(start + 32 * minute), 1);
    await stores.close();
  });

  it("[DEC-SES-01] removes the lockout records that no longer matter at its now, and keeps those that do", async () => {
    const stores: Stores = createMemoryStores();
    await stores.lockouts.compareAndSet("password", "made-up-1@example.com", null, "{}", start + 10 * minute);
    await stores.lockouts.compareAndSet("api-key", "made-up-2@example.com", null, "{}", start + 10 * minute);
    await stores.lockouts.compareAndSet("password", "locked@example.com", null, "{}", start + 15 * minute);
    const janitor = janitorOf(stores);
    assert.equal(await janitor.runDue(start + 10 * minute - 1), 0);
    assert.equal(await janitor.runDue(start + 11 * minute), 2);
    assert.equal(await stores.lockouts.read("password", "made-up-1@example.com"), null);
    assert.equal(await stores.lockouts.read("api-key", "made-up-2@example.com"), null);
    assert.notEqual(await stores.lockouts.read("password", "locked@example.com"), null);
    assert.equal(await janitor.runDue(start + 15 * minute - 1), 0);
    assert.equal(await janitor.runDue(start + 16 * minute), 1);
    assert.equal(await stores.lockouts.read("password", "locked@example.com"), null);
    await stores.close();
  });
});
