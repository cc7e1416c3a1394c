/**
 * The import use case (core/files/file-import.use-cases.ts) on the PostgreSQL store with its received files in
 * the database, as every node of a cluster runs it: each node has a data directory of its own (its drop
 * folders), and every node reads every file received. An upload or a dropped file received by one node is
 * imported by any, and an import whose node stopped is finished by a node of another machine.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileImportService, importLeaseMs } from "../../core/files/index.ts";
import type { FileStatusRecord, ReceivedFileStorage, Stores } from "../../core/ports/index.ts";
import { allEvents, chunks, failAppends, header, importingProfile, states } from "../../testing/files/file-import.ts";
import { seedProfile } from "../../testing/fixtures.ts";
import { ReceivedCsvRows } from "../fs/csv-rows.ts";
import { DropFolders } from "../fs/drop-folder.ts";
import { cryptoIds } from "../runtime/crypto.ts";
import { hostEventLoop } from "../runtime/event-loop.ts";
import { createLease, type LeaseProcess } from "../runtime/lease.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { hostRepeatingTimer } from "../runtime/repeating-timer.ts";
import { openPostgresStores } from "./postgres.stores.ts";
import { postgresForTests } from "./test-database.ts";

const pg = postgresForTests();

/** A node: its stores (a pool of its own on the test's database) and its data directory. */
interface Node {
  readonly stores: Stores;
  readonly files: ReceivedFileStorage;
  readonly dataDir: string;
}

let url: string;
let nodes: Node[];
const now = Date.UTC(2024, 0, 31, 9, 30);

async function node(): Promise<Node> {
  const stores = await openPostgresStores({ url, maxConnections: 4 });
  const files = stores.receivedFiles;
  if (!files) throw new Error("the PostgreSQL store keeps no received files");
  const opened = { stores, files, dataDir: mkdtempSync(join(tmpdir(), "svc-hub-pg-import-")) };
  nodes.push(opened);
  return opened;
}

/**
 * The import service of `nodeId` on `host`, on the node's stores and data directory; its leases name `process`
 * and read the time from `realNow`.
 */
function importsOf(
  { stores, files, dataDir }: Node,
  nodeId: string,
  options: { host?: string; batchRows?: number; process?: LeaseProcess; realNow?: () => number } = {},
): FileImportService {
  const logger = createMemoryLogger();
  return new FileImportService({
    stores,
    clock: { now: () => now },
    ids: cryptoIds,
    nodeId,
    host: options.host ?? `host-of-${nodeId}`,
    files,
    rows: new ReceivedCsvRows(files),
    dropFolders: new DropFolders({ dataDir, files: stores.files, logger, dropSettleMs: 0 }),
    leases: (name, holder, ttlMs) =>
      createLease(stores.settings, name, holder, ttlMs, options.realNow, options.process),
    eventLoop: hostEventLoop,
    timer: hostRepeatingTimer,
    maxRecordBytes: 16 * 1024 * 1024,
    logger,
    notify: () => undefined,
    ...(options.batchRows ? { batchRows: options.batchRows } : {}),
  });
}

/** A process of its own machine: none of the others' process ids mean anything to it. */
const machine = (name: string, pid: number): LeaseProcess => ({ host: name, pid, isAlive: () => true });

const rows = (count: number) =>
  Array.from({ length: count }, (_, index) => `r${index}@example.com,${index},2024-01-31 09:30\n`);

beforeEach(async () => {
  url = await pg.freshUrl();
  nodes = [];
  const first = await node();
  await seedProfile(first.stores, importingProfile);
});

afterEach(async () => {
  for (const { stores, dataDir } of nodes) {
    await stores.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

describe("file imports on PostgreSQL, their files in the database (DEC-FIL-02..05)", () => {
  test("an upload to one node is kept in the database, none of it in a data directory, and another node imports it", async () => {
    const [a] = nodes as [Node];
    const b = await node();
    const received = await importsOf(a, "node-a").receive(
      "acme",
      "main",
      "purchases_1.csv",
      "upload",
      chunks(header, ...rows(3)),
    );
    expect(received.ok).toBe(true);
    expect(existsSync(join(a.dataDir, "files"))).toBe(false);
    expect(await b.files.holds("acme", "main", "purchases_1.csv")).toBe(true);

    while ((await importsOf(b, "node-b").processNext()) > 0);
    const record = (await b.stores.files.find("acme", "main", "purchases_1.csv")) as FileStatusRecord;
    expect(states(record)).toEqual(["DOWNLOADING", "DOWNLOADED", "PROCESSING", "PROCESSED"]);
    expect(record).toMatchObject({ nodeId: "node-b", file: { sourceHost: "host-of-node-a", lineCount: 4 } });
    expect(record.status.at(-1)?.counts).toEqual({ skipped: 0, failed: 0, succeeded: 3 });
    expect(await allEvents(a.stores)).toHaveLength(3);
  });

  test("a file dropped into one node's folder is read by that node, stored in the database, and imported by another", async () => {
    const [a] = nodes as [Node];
    const b = await node();
    const inbox = join(a.dataDir, "inbox", "acme", "main");
    mkdirSync(inbox, { recursive: true });
    writeFileSync(join(inbox, "purchases_2.csv"), `${header}${rows(2).join("")}`);
    expect(await importsOf(b, "node-b").pickUpDropped()).toBe(0);
    expect(await importsOf(a, "node-a").pickUpDropped()).toBe(1);
    expect(readdirSync(inbox)).toEqual([]);

    while ((await importsOf(b, "node-b").processNext()) > 0);
    expect(await b.stores.files.find("acme", "main", "purchases_2.csv")).toMatchObject({
      nodeId: "node-b",
      finished: true,
      file: { sourceType: "file" },
    });
    expect(await allEvents(b.stores)).toHaveLength(2);
  });

  test("an import its node left PROCESSING is finished by a node of another machine once its lease expires, after its last batch", async () => {
    const [a] = nodes as [Node];
    const b = await node();
    const restore = failAppends(a.stores, 2, "stopped");
    const imports = importsOf(a, "node-a", { batchRows: 2, process: machine("machine-a", 4001) });
    await imports.receive("acme", "main", "purchases_3.csv", "upload", chunks(header, ...rows(5)));
    await expect(imports.processNext()).rejects.toThrow("stopped");
    restore();
    const left = (await a.stores.files.find("acme", "main", "purchases_3.csv")) as FileStatusRecord;
    // The node stopped while it held the lease (a failure gives it up; a crash does not).
    expect(
      await createLease(
        a.stores.settings,
        `file-import.${left.id}`,
        "node-a#0000",
        importLeaseMs,
        Date.now,
        machine("machine-a", 4001),
      ).acquire(),
    ).toBe(true);

    const onMachineB = (realNow: () => number) =>
      importsOf(b, "node-b", { batchRows: 2, process: machine("machine-b", 7), realNow });
    expect(await onMachineB(Date.now).processNext()).toBe(0);
    const later = onMachineB(() => Date.now() + importLeaseMs + 1);
    while ((await later.processNext()) > 0);
    const record = (await b.stores.files.find("acme", "main", "purchases_3.csv")) as FileStatusRecord;
    expect(record).toMatchObject({ finished: true, nodeId: "node-b" });
    expect(record.status.at(-1)).toMatchObject({ state: "PROCESSED", counts: { skipped: 0, failed: 0, succeeded: 5 } });
    expect((await allEvents(b.stores)).map((event) => event.data._file_line_num)).toEqual([2, 3, 4, 5, 6]);
  });

  test("a receipt its node left DOWNLOADING is failed by a node of another machine, and its partial copy goes", async () => {
    const [a] = nodes as [Node];
    const b = await node();
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    let breakOff: (error: Error) => void = () => undefined;
    const brokenOff = new Promise<never>((_, reject) => {
      breakOff = reject;
    });
    async function* stalls(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode(`${header}${rows(1).join("")}`);
      stop();
      await brokenOff;
    }
    // The receipt stalls until the end of the test: its node is as good as gone once its lease expires.
    const receiving = importsOf(a, "node-a", { process: machine("machine-a", 4001) }).receive(
      "acme",
      "main",
      "purchases_4.csv",
      "upload",
      stalls(),
    );
    await stopped;
    const later = importsOf(b, "node-b", {
      process: machine("machine-b", 7),
      realNow: () => Date.now() + importLeaseMs + 1,
    });
    expect(await later.processNext()).toBe(1);
    expect(await b.stores.files.find("acme", "main", "purchases_4.csv")).toMatchObject({
      nodeId: "node-b",
      finished: true,
      status: [{ state: "DOWNLOADING", lastFailure: "Failed to download (FTP, SFTP, S3) file" }],
    });
    expect(await b.files.holds("acme", "main", "purchases_4.csv")).toBe(false);
    expect(await b.files.eraseAll()).toBe(0);
    breakOff(new Error("connection reset"));
    expect(await receiving).toMatchObject({ ok: true, value: { finished: true } });
  });
});
