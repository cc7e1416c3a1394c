/**
 * The cases of the session janitor, run on every store: on the in-memory store in the core
 * (core/session/session-janitor.worker.test.ts), on the SQL of deleteExpired in the adapters
 * (adapters/store-libsql/session-janitor.worker.test.ts). Each takes a fresh, empty store and closes it.
 */
import assert from "node:assert/strict";
import type { SessionRecord, Stores } from "../../core/ports/index.ts";
import { sessionJanitor } from "../../core/session/index.ts";
import { sampleUser } from "../fixtures.ts";

const minute = 60_000;
const policy = { idleMs: 30 * minute, absoluteMs: 12 * 60 * minute };
const start = Date.UTC(2026, 10, 21);

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

export const sessionJanitorCases: Record<string, (stores: Stores) => Promise<void>> = {
  "[DEC-SES-02] removes the sessions idle past the timeout, looking at most once a minute": async (stores) => {
    await stores.tenancy.putUser(sampleUser("ann@example.com"));
    await stores.sessions.create(session("idle", start), 50);
    await stores.sessions.create(session("used", start + 90_000), 50);
    const janitor = janitorOf(stores);
    assert.equal(await janitor.runDue(start + 31 * minute), 1);
    assert.equal(await stores.sessions.findByCookieHash(session("idle", start).cookieHash), null);
    // "used" has been idle for 30 minutes from 31:30 on, but the last look was less than a minute ago.
    assert.equal(await janitor.runDue(start + 32 * minute - 1), 0);
    assert.equal(await janitor.runDue(start + 32 * minute), 1);
    await stores.close();
  },

  "[DEC-SES-01] removes the lockout records that no longer matter at its now, and keeps those that do": async (
    stores,
  ) => {
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
  },
};
