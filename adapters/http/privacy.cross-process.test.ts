/**
 * PRV-06: "a second identical request while PENDING answers the same transaction" holds across processes:
 * two servers on one database file, asked at the same time, answer one transactionId (the store's partial
 * unique index decides, not a lock in either process). The deletion then runs once, on either of them.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-privacy-nodes-"));
const adminToken = `privacy-nodes-${crypto.randomUUID()}`;
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

async function tokenOf(server: SpawnedServer): Promise<string> {
  const answer = await fetch(`${server.url}/v2/auth`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { token: string }).token;
}

describe("visitor deletion on two server processes sharing one database", () => {
  it("[PRV-06] concurrent identical delete requests to both answer one transactionId, which both then report", async () => {
    const email = `two-nodes-${crypto.randomUUID()}@example.com`;
    const servers = [first, second];
    const tokens = await Promise.all(servers.map(tokenOf));
    const path = "/v2/visitor/accounts/acme/profiles/main";
    const answers = await Promise.all(
      Array.from({ length: 16 }, async (_, index) => {
        const response = await fetch(`${servers[index % 2]!.url}${path}`, {
          method: "DELETE",
          headers: {
            authorization: `Bearer ${tokens[index % 2]}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({ attributeId: "5120", attributeValue: email }),
        });
        expect(response.status).toBe(202);
        return ((await response.json()) as { transactionId: string }).transactionId;
      }),
    );
    expect(new Set(answers).size).toBe(1);
    const id = answers[0] as string;
    for (const [index, server] of servers.entries()) {
      const state = await fetch(`${server.url}${path}/transactions/${id}`, {
        headers: { authorization: `Bearer ${tokens[index]}` },
      });
      expect(await state.json()).toEqual({ [id]: "PENDING" });
    }

    const admin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
    expect(
      (
        await fetch(`${first.url}/admin/clock/advance`, {
          method: "POST",
          headers: admin,
          body: JSON.stringify({ by: "5s" }),
        })
      ).status,
    ).toBe(200);
    // The other process reads the moved clock from the store within its poll interval; wait on both.
    for (const server of servers)
      expect(
        (
          await fetch(`${server.url}/admin/wait`, {
            method: "POST",
            headers: admin,
            body: JSON.stringify({ scheduled: true, timeoutMs: 20_000 }),
          })
        ).status,
      ).toBe(200);
    const settled = await fetch(`${second.url}${path}/transactions/${id}`, {
      headers: { authorization: `Bearer ${tokens[1]}` },
    });
    expect(await settled.json()).toEqual({ [id]: "SUCCESS" });
  }, 60_000);
});
