import { describe, expect, it } from "bun:test";
import type { SessionRecord, Stores } from "../../core/ports/index.ts";
import { sessionJanitor } from "../../core/session/session-janitor.worker.ts";
import { sampleUser } from "../store-contract/fixtures.ts";
import { openLibsqlStores } from "./libsql.stores.ts";

// The session janitor on the libSQL store: the same cases as its memory store test in the core
// (core/session/session-janitor.worker.test.ts), here on the SQL of deleteExpired.

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

describe("the session janitor (libsql store)", () => {
  const open = () => openLibsqlStores({ url: ":memory:" });

  it("[DEC-SES-02] removes the sessions idle past the timeout, looking at most once a minute", async () => {
    const stores: Stores = await open();
    await stores.tenancy.putUser(sampleUser("ann@example.com"));
    await stores.sessions.create(session("idle", start), 50);
    await stores.sessions.create(session("used", start + 90_000), 50);
    const janitor = janitorOf(stores);
    expect(await janitor.runDue(start + 31 * minute)).toBe(1);
    expect(await stores.sessions.findByCookieHash(session("idle", start).cookieHash)).toBeNull();
    // "used" has been idle for 30 minutes from 31:30 on, but the last look was less than a minute ago.
    expect(await janitor.runDue(start + 32 * minute - 1)).toBe(0);
    expect(await janitor.runDue(start + 32 * minute)).toBe(1);
    await stores.close();
  });

  it("[DEC-SES-01] removes the lockout records that no longer matter at its now, and keeps those that do", async () => {
    const stores: Stores = await open();
    await stores.lockouts.compareAndSet("password", "made-up-1@example.com", null, "{}", start + 10 * minute);
    await stores.lockouts.compareAndSet("api-key", "made-up-2@example.com", null, "{}", start + 10 * minute);
    await stores.lockouts.compareAndSet("password", "locked@example.com", null, "{}", start + 15 * minute);
    const janitor = janitorOf(stores);
    expect(await janitor.runDue(start + 10 * minute - 1)).toBe(0);
    expect(await janitor.runDue(start + 11 * minute)).toBe(2);
    expect(await stores.lockouts.read("password", "made-up-1@example.com")).toBeNull();
    expect(await stores.lockouts.read("api-key", "made-up-2@example.com")).toBeNull();
    expect(await stores.lockouts.read("password", "locked@example.com")).not.toBeNull();
    expect(await janitor.runDue(start + 15 * minute - 1)).toBe(0);
    expect(await janitor.runDue(start + 16 * minute)).toBe(1);
    expect(await stores.lockouts.read("password", "locked@example.com")).toBeNull();
    await stores.close();
  });
});
