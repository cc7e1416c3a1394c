/**
 * DEC-FIL-05, DEC-OPS-04: two svc-hub processes on one PostgreSQL database, each with a data directory of its
 * own, keep the files received for import in the database. A file uploaded to one is imported by the cluster
 * and answered for by both; when the node importing it is killed, the other finishes the import from the
 * database's copy, every row once.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { type SpawnedServer, spawnServer } from "../../tools/spawn-server.ts";
import { postgresForTests } from "../store-postgres/test-database.ts";

const root = resolve(import.meta.dir, "../..");
const pg = postgresForTests();
const adminToken = `pg-nodes-${crypto.randomUUID()}`;
const admin = { authorization: `Bearer ${adminToken}` };
const dataDirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), "svc-hub-pg-node-")));
let nodes: SpawnedServer[] = [];
let database: postgres.Sql;

beforeAll(async () => {
  const url = await pg.freshUrl();
  database = postgres(url, { max: 1, onnotice: () => undefined });
  const env = { SVC_STORE: "postgres", SVC_DATABASE_URL: url };
  nodes = await Promise.all(dataDirs.map((dataDir) => spawnServer({ root, dataDir, adminToken, env })));
}, 60_000);

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  await database?.end();
  for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

/** The node id a spawned server answers with (DEC-GEN-05: this host and its process). */
const nodeIdOf = (node: SpawnedServer) => `${hostname()}-${node.pid}`;

/** Uploads a purchases file of `rows` rows, of a hundred buyers (so that the profiles they fold into are few). */
function upload(node: SpawnedServer, name: string, rows: number): Promise<Response> {
  const lines = Array.from({ length: rows }, (_, n) => `buyer-${n % 100}@example.com,${n},2024-01-31 09:30`).join("\n");
  return fetch(`${node.url}/admin/accounts/acme/profiles/main/files/${name}`, {
    method: "POST",
    headers: admin,
    body: `email,amount,purchased_at\n${lines}\n`,
  });
}

function wait(node: SpawnedServer): Promise<Response> {
  return fetch(`${node.url}/admin/wait`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({ timeoutMs: 60_000 }),
  });
}

interface FileStatus {
  readonly node_id: string;
  readonly status: Array<{ state: string; lines_successfully_processed?: number; lines_failed_processing?: number }>;
}

async function statusOn(node: SpawnedServer, name: string): Promise<FileStatus> {
  const auth = await fetch(`${node.url}/v2/auth`, {
    method: "POST",
    body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
  });
  const { token } = (await auth.json()) as { token: string };
  const status = await fetch(`${node.url}/v2/omnichannel/accounts/acme/profiles/main/files/${name}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(status.status).toBe(200);
  return (await status.json()) as FileStatus;
}

/** The events the import of `name` made, and how many lines of the file they came from. */
async function eventsOf(name: string): Promise<{ events: number; lines: number }> {
  const [row] = await database`
    select count(*)::int as events, count(distinct (data::jsonb ->> '_file_line_num'))::int as lines
    from events where data::jsonb ->> '_source_file' = ${name}`;
  return { events: row?.events ?? -1, lines: row?.lines ?? -1 };
}

describe("two nodes on one PostgreSQL database, each with its own data directory", () => {
  it("[DEC-OPS-04] a file uploaded to one is imported from the database, no node keeping it on disk; a wait on the other waits for it", async () => {
    const [first, second] = nodes as [SpawnedServer, SpawnedServer];
    const name = `purchases_pg-nodes-${Date.now()}.csv`;
    expect((await upload(first, name, 2_000)).status).toBe(202);
    expect((await wait(second)).status).toBe(200);
    const record = await statusOn(second, name);
    expect(record.status.map((entry) => entry.state)).toEqual(["DOWNLOADING", "DOWNLOADED", "PROCESSING", "PROCESSED"]);
    expect(record.status.at(-1)?.lines_successfully_processed).toBe(2_000);
    expect(await statusOn(first, name)).toEqual(record);
    expect(await eventsOf(name)).toEqual({ events: 2_000, lines: 2_000 });
    for (const dataDir of dataDirs) expect(readdirSync(dataDir)).not.toContain("files");
  }, 60_000);

  it("[DEC-FIL-05] when the node importing a file is killed, the other finishes the import, every row once", async () => {
    const name = `purchases_pg-kill-${Date.now()}.csv`;
    // Twenty batches: the first is committed well before the last.
    const rows = 20_000;
    expect((await upload(nodes[0] as SpawnedServer, name, rows)).status).toBe(202);
    // The node that took the import, once a batch of its rows is committed (and before the last is).
    let importing: { node_id: string; rowsRead: number } | undefined;
    const deadline = Date.now() + 30_000;
    while (!importing && Date.now() < deadline) {
      const [row] = await database`
        select node_id, finished, progress from file_imports where name = ${name}`;
      if (row?.finished) throw new Error("the import finished before a node could be killed: make the file larger");
      const rowsRead = row?.progress ? (JSON.parse(row.progress as string) as { rowsRead: number }).rowsRead : 0;
      if (rowsRead > 0) importing = { node_id: row?.node_id as string, rowsRead };
      else await Bun.sleep(5);
    }
    const killed = nodes.find((node) => nodeIdOf(node) === importing?.node_id);
    const survivor = nodes.find((node) => node !== killed);
    if (!killed || !survivor) throw new Error(`no node imports ${name}: ${JSON.stringify(importing)}`);
    await killed.kill();
    nodes = [survivor];

    expect((await wait(survivor)).status).toBe(200);
    const record = await statusOn(survivor, name);
    expect(record.node_id).toBe(nodeIdOf(survivor));
    expect(record.status.map((entry) => entry.state)).toEqual(["DOWNLOADING", "DOWNLOADED", "PROCESSING", "PROCESSED"]);
    expect(record.status.at(-1)).toMatchObject({ lines_successfully_processed: rows, lines_failed_processing: 0 });
    expect(await eventsOf(name)).toEqual({ events: rows, lines: rows });
    expect(survivor.stdout()).toContain('"msg":"file import taken over"');
  }, 120_000);
});
