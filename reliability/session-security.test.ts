/**
 * Session security over a real server process (SECURITY.md, "Sessions" and "Lockout"): session fixation
 * (a cookie / utk pair the client chose is refused, and a login that brings its own JSESSIONID gets a new
 * one), logout ends the session and its utk, 50 parallel wrong logins for one username check at most five
 * passwords (the rest, and then the right password, are locked out), and the cookie and the utk of 20
 * logins are distinct and long. Loopback only, bounded in requests and time.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "..");
const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-session-security-"));
const adminToken = `session-security-${crypto.randomUUID()}`;
const dle = "/v1/dle/accounts/acme/profiles/main/datalayers";
const formHeaders = { "content-type": "application/x-www-form-urlencoded" };
let server: SpawnedServer;

beforeAll(async () => {
  server = await spawnServer({ root, dataDir, adminToken, env: { SVC_TIMING: "fast" } });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function login(username: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/v1/login`, {
    method: "POST",
    headers: { ...formHeaders, ...headers },
    body: new URLSearchParams({ username, password }),
  });
}

async function session(headers: Record<string, string> = {}): Promise<{ cookie: string; utk: string }> {
  const answer = await login("demo@example.com", "demo-password-1", headers);
  expect(answer.status).toBe(200);
  const utk = ((await answer.json()) as { utk: string }).utk;
  const cookie = /JSESSIONID=([^;]*)/.exec(answer.headers.get("set-cookie") ?? "")?.[1] ?? "";
  expect(cookie).not.toBe("");
  return { cookie, utk };
}

/** The list of acme/main's data layers with a cookie and a utk: 200 for a live session, else 401 1401. */
function list(cookie: string, utk: string): Promise<Response> {
  return fetch(`${server.url}${dle}?utk=${encodeURIComponent(utk)}`, { headers: { cookie: `JSESSIONID=${cookie}` } });
}

async function expectRefused(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(((await response.json()) as { returnCode: number }).returnCode).toBe(1401);
}

const base64url = /^[A-Za-z0-9_-]{22,}$/;

describe("session security over a real server process", () => {
  it("fixation: a client-chosen JSESSIONID / utk is refused, and a login bringing one gets a new cookie", async () => {
    const chosenCookie = "AttackerChosenSessionId0123456789abcdefABCDEF";
    const chosenUtk = "AttackerChosenUtk0123456789abcdef";
    await expectRefused(await list(chosenCookie, chosenUtk));

    const issued = await session({ cookie: `JSESSIONID=${chosenCookie}` });
    expect(issued.cookie).not.toBe(chosenCookie);
    expect(issued.cookie).toMatch(base64url);
    expect((await list(issued.cookie, issued.utk)).status).toBe(200);
    // The chosen cookie did not become a session, with the issued utk or the chosen one.
    await expectRefused(await list(chosenCookie, issued.utk));
    await expectRefused(await list(chosenCookie, chosenUtk));
    // An issued cookie with a chosen utk, or another session's utk, is refused too.
    await expectRefused(await list(issued.cookie, chosenUtk));
    const other = await session();
    await expectRefused(await list(issued.cookie, other.utk));
    await expectRefused(await list(other.cookie, issued.utk));
  });

  it("logout ends the session and its utk", async () => {
    const { cookie, utk } = await session();
    expect((await list(cookie, utk)).status).toBe(200);
    const out = await fetch(`${server.url}/v1/logout`, {
      method: "POST",
      headers: { ...formHeaders, cookie: `JSESSIONID=${cookie}` },
    });
    expect(out.status).toBe(200);
    await expectRefused(await list(cookie, utk));
    // Logging in again makes a new session; the old pair stays dead.
    const again = await session({ cookie: `JSESSIONID=${cookie}` });
    expect(again.cookie).not.toBe(cookie);
    expect(again.utk).not.toBe(utk);
    expect((await list(again.cookie, again.utk)).status).toBe(200);
    await expectRefused(await list(cookie, utk));
    await expectRefused(await list(again.cookie, utk));
  });

  it("50 parallel wrong logins for one username: at most 5 are checked (1401), the rest and then the right password are 1402", async () => {
    const email = `lockout-${crypto.randomUUID()}@example.com`;
    const password = "the-right-password-1";
    const created = await fetch(`${server.url}/admin/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ email, password, grants: [{ account: "acme", profiles: ["main"] }] }),
    });
    expect(created.status).toBeLessThan(300);
    expect((await login(email, password)).status).toBe(200); // the user works before the attack

    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, n) => {
        const answer = await login(email, `wrong-password-${n}`);
        expect(answer.status).toBe(401);
        return ((await answer.json()) as { returnCode: number }).returnCode;
      }),
    );
    const counts = {
      1401: answers.filter((code) => code === 1401).length,
      1402: answers.filter((code) => code === 1402).length,
    };
    expect(counts[1401] + counts[1402]).toBe(50);
    expect(counts[1401]).toBeLessThanOrEqual(5);
    expect(counts[1402]).toBeGreaterThanOrEqual(45);

    const right = await login(email, password);
    expect(right.status).toBe(401);
    expect(((await right.json()) as { returnCode: number }).returnCode).toBe(1402);
  }, 30_000);

  it("20 logins give 20 distinct cookies and utks of at least 22 base64url characters", async () => {
    const sessions: Array<{ cookie: string; utk: string }> = [];
    for (let n = 0; n < 20; n += 1) sessions.push(await session());
    for (const { cookie, utk } of sessions) {
      expect(cookie).toMatch(base64url);
      expect(utk).toMatch(base64url);
    }
    const values = sessions.flatMap(({ cookie, utk }) => [cookie, utk]);
    expect(new Set(values).size).toBe(40);
  }, 30_000);
});
