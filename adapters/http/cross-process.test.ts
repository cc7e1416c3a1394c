/**
 * DEC-SES-01: the lockout is counted in the store, so it holds across two server processes on one
 * database file (and so across the nodes of a shared database).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnServer, type SpawnedServer } from "../../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-two-nodes-"));
const adminToken = `two-nodes-${crypto.randomUUID()}`;
let first: SpawnedServer;
let second: SpawnedServer;

beforeAll(async () => {
  first = await spawnServer({ root, dataDir, adminToken });
  second = await spawnServer({ root, dataDir, adminToken });
});

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
});

function login(server: SpawnedServer, username: string, password: string) {
  return fetch(`${server.url}/v1/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password }),
  });
}

async function code(response: Response): Promise<number> {
  return response.status === 200 ? 200 : ((await response.json()) as { returnCode: number }).returnCode;
}

describe("two server processes on one database file", () => {
  it("count the failures of one username together and both refuse it once locked", async () => {
    const email = `two-nodes-${Date.now()}@example.com`;
    const created = await fetch(`${first.url}/admin/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ email, password: "right-password-1", grants: [{ account: "acme", profiles: "*" }] }),
    });
    expect(created.status).toBe(201);

    const answers: number[] = [];
    for (let attempt = 0; attempt < 6; attempt += 1) {
      answers.push(await code(await login(attempt % 2 === 0 ? first : second, email, "wrong")));
    }
    expect(answers).toEqual([1401, 1401, 1401, 1401, 1401, 1402]);
    expect(await code(await login(first, email, "right-password-1"))).toBe(1402);
    expect(await code(await login(second, email, "right-password-1"))).toBe(1402);
  });

  it("accept each other's sessions and tokens", async () => {
    const session = await login(first, "demo@example.com", "demo-password-1");
    expect(session.status).toBe(200);
    const cookie = (session.headers.getSetCookie().find((value) => value.startsWith("JSESSIONID=")) ?? "").split(";")[0] as string;
    const logout = await fetch(`${second.url}/v1/logout`, { method: "POST", headers: { cookie } });
    expect(logout.status).toBe(200);

    const token = await fetch(`${second.url}/v2/auth`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
    });
    const { token: jwt } = (await token.json()) as { token: string };
    const ids = await fetch(`${first.url}/v2/visitor/accounts/acme/profiles/main/ids`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(ids.status).toBe(200);
  });
});
