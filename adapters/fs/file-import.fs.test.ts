/**
 * The import use case (core/files/file-import.use-cases.ts) on the data directory's files, against the
 * in-memory store: what depends on the files on disk (size, MD5 and lines counted as they are written, a
 * copy that is gone), on csv-parse's reading of them (FIL-09, DEC-FIL-03), on the drop folders on disk
 * (DEC-OPS-04), and on the processes the leases name (recovery after a crash). The rest of the use case is
 * tested with its files in memory, in core/files/file-import.use-cases.test.ts.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileImportService, importLeaseMs, leaseSweepMs } from "../../core/files/index.ts";
import type { FileStatusRecord, Stores } from "../../core/ports/index.ts";
import {
  allEvents,
  chunks,
  failAppends,
  header,
  importingProfile,
  importText as importTextWith,
  states,
} from "../../testing/files/file-import.ts";
import { seedProfile } from "../../testing/fixtures.ts";
import { cryptoIds } from "../runtime/crypto.ts";
import { hostEventLoop } from "../runtime/event-loop.ts";
import { createLease, type LeaseProcess } from "../runtime/lease.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { hostRepeatingTimer } from "../runtime/repeating-timer.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { ReceivedCsvRows } from "./csv-rows.ts";
import { DropFolders, dropSettleMs } from "./drop-folder.ts";
import { ReceivedFiles } from "./received-files.ts";

let stores: Stores;
let dataDir: string;
let now: number;
let notified: number;

/** An import service of `node-a` on `host-a`; dropped files are taken at once unless `dropSettleMs` says otherwise. */
function service(
  options: {
    maxRecordBytes?: number;
    batchRows?: number;
    stores?: Stores;
    nodeId?: string;
    host?: string;
    lease?: { readonly process?: LeaseProcess; readonly now?: () => number };
    claimGiveBackMs?: number;
    dropSettleMs?: number;
    settleClock?: () => number;
  } = {},
): FileImportService {
  const storesUsed = options.stores ?? stores;
  const logger = createMemoryLogger();
  const files = new ReceivedFiles(dataDir);
  return new FileImportService({
    stores: storesUsed,
    clock: { now: () => now },
    ids: cryptoIds,
    nodeId: options.nodeId ?? "node-a",
    files,
    rows: new ReceivedCsvRows(files),
    dropFolders: new DropFolders({
      dataDir,
      files: storesUsed.files,
      logger,
      ...(options.claimGiveBackMs === undefined ? {} : { claimGiveBackMs: options.claimGiveBackMs }),
      dropSettleMs: options.dropSettleMs ?? 0,
      ...(options.settleClock ? { settleClock: options.settleClock } : {}),
    }),
    leases: (name, holder, ttlMs) =>
      createLease(storesUsed.settings, name, holder, ttlMs, options.lease?.now, options.lease?.process),
    eventLoop: hostEventLoop,
    timer: hostRepeatingTimer,
    host: options.host ?? "host-a",
    maxRecordBytes: options.maxRecordBytes ?? 16 * 1024 * 1024,
    logger,
    notify: () => {
      notified += 1;
    },
    ...(options.batchRows ? { batchRows: options.batchRows } : {}),
  });
}

/** Receives the text as an upload and processes everything waiting; answers the record. */
function importText(name: string, text: string, imports = service()): Promise<FileStatusRecord> {
  return importTextWith(stores, imports, name, text);
}

beforeEach(async () => {
  stores = createMemoryStores();
  await seedProfile(stores, importingProfile);
  dataDir = mkdtempSync(join(tmpdir(), "svc-hub-import-"));
  now = Date.UTC(2024, 0, 31, 9, 30);
  notified = 0;
});

afterEach(async () => {
  await stores.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a good file (DEC-FIL-03, DEC-FIL-04)", () => {
  test("is DOWNLOADING, DOWNLOADED, PROCESSING, PROCESSED with exact counters, size, MD5 and line count", async () => {
    const text = `${header}ann@example.com,12.5,2024-01-31 09:30\n,1,2024-01-31 09:30\n\nbob@example.com,7,2024-02-01 10:00`;
    const record = await importText("purchases_1.csv", text);
    expect(states(record)).toEqual(["DOWNLOADING", "DOWNLOADED", "PROCESSING", "PROCESSED"]);
    expect(record.status.at(-1)).toEqual({
      state: "PROCESSED",
      at: now,
      counts: { skipped: 2, failed: 0, succeeded: 2 },
    });
    expect(record.file).toEqual({
      size: Buffer.byteLength(text),
      checksum: new Bun.CryptoHasher("md5").update(text).digest("hex"),
      sourceType: "upload",
      sourceHost: "host-a",
      lineCount: 5,
    });
    expect(record.finished).toBe(true);
    expect(record.id).toMatch(/^[0-9a-f]{24}$/);
    expect(notified).toBe(1);
  });

  test("a quoted value over several lines is one row; line numbers stay those of the file; a BOM and CRLF are read", async () => {
    await importText("notes_1.csv", `\uFEFFemail,note\r\nann,"line one\r\nline two"\r\nbob,plain\r\n`);
    const events = await allEvents(stores);
    expect(events.map((event) => [event.data.note, event.data._file_line_num])).toEqual([
      ["line one\r\nline two", 2],
      ["plain", 4],
    ]);
  });
});

describe("every failure message an import can meet, each reproduced by a file (FIL-09, DEC-FIL-03)", () => {
  test("DBObject of size n is over Max BSON size n: a record whose text alone is over the limit stops the parser there", async () => {
    const record = await importText(
      "notes_3.csv",
      `email,note\nann,${"y".repeat(1000)}\n`,
      service({ maxRecordBytes: 400 }),
    );
    expect(record.status.at(-1)?.lastFailure).toBe("DBObject of size 401 is over Max BSON size 400");
  });

  test("Failed to download (FTP, SFTP, S3) file: a source that breaks while it is read stays on DOWNLOADING", async () => {
    async function* broken(): AsyncIterable<Uint8Array> {
      yield new TextEncoder().encode(header);
      throw new Error("connection reset");
    }
    const received = await service().receive("acme", "main", "purchases_10.csv", "upload", broken());
    expect(received.ok).toBe(true);
    const record = (await stores.files.find("acme", "main", "purchases_10.csv")) as FileStatusRecord;
    expect(record.status).toEqual([
      { state: "DOWNLOADING", at: now, lastFailure: "Failed to download (FTP, SFTP, S3) file" },
    ]);
    expect(record.finished).toBe(true);
    expect(existsSync(join(dataDir, "files", "acme", "main", "purchases_10.csv.part"))).toBe(false);
    // DEC-FIL-05: the size and MD5 of the bytes that came, never an empty checksum.
    expect(record.file).toMatchObject({
      size: header.length,
      checksum: createHash("md5").update(header).digest("hex"),
      lineCount: 1,
    });
    async function* nothing(): AsyncIterable<Uint8Array> {
      yield* [];
      throw new Error("connection reset");
    }
    await service().receive("acme", "main", "purchases_11.csv", "upload", nothing());
    expect((await stores.files.find("acme", "main", "purchases_11.csv"))?.file).toMatchObject({
      size: 0,
      checksum: "d41d8cd98f00b204e9800998ecf8427e",
      lineCount: 0,
    });
  });

  test("Exception thrown while processing file: a received file that is gone when it is processed", async () => {
    const imports = service();
    await imports.receive("acme", "main", "purchases_lost.csv", "upload", chunks(header, "ann,1,2024-01-31 09:30\n"));
    rmSync(new ReceivedFiles(dataDir).pathOf("acme", "main", "purchases_lost.csv"));
    while ((await imports.processNext()) > 0);
    const record = (await stores.files.find("acme", "main", "purchases_lost.csv")) as FileStatusRecord;
    expect(record.status.at(-1)).toEqual({
      state: "PROCESSING",
      at: now,
      lastFailure: "Exception thrown while processing file",
    });
  });
});

describe("the leases of imports (DEC-FIL-05)", () => {
  test("a lease row no unfinished import needs (left by a crash between the lease and the record) is removed; one still held, or of an unfinished import, stays", async () => {
    const machine = "machine-1";
    // Process 4001 has stopped; the others run.
    const processOf = (pid: number): LeaseProcess => ({ host: machine, pid, isAlive: (other) => other !== 4001 });
    const take = (id: string, holder: string, process: LeaseProcess) =>
      createLease(stores.settings, `file-import.${id}`, holder, importLeaseMs, Date.now, process).acquire();
    await take("a".repeat(24), "node-gone#0001", processOf(4001));
    await take("b".repeat(24), "node-live#0002", processOf(4002));
    const unfinished = await service().receive("acme", "main", "purchases_60.csv", "upload", chunks(header));
    expect(unfinished.ok).toBe(true);
    const record = (unfinished as { value: FileStatusRecord }).value;
    await take(record.id, "node-gone#0001", processOf(4001));

    const sweeper = service({ lease: { process: processOf(4003) } });
    expect(await sweeper.sweepLeftLeases()).toBe(1);
    expect(await stores.settings.keysStartingWith("lease.file-import.")).toEqual(
      [`lease.file-import.${"b".repeat(24)}`, `lease.file-import.${record.id}`].sort(),
    );
    // At most once per leaseSweepMs.
    await take("c".repeat(24), "node-gone#0001", processOf(4001));
    expect(await sweeper.sweepLeftLeases()).toBe(0);
    expect(leaseSweepMs).toBe(600_000);
  });
});

describe("imports left by a process that stopped (FIL-08, DEC-FIL-03)", () => {
  // A process is named in a lease by its machine and process id; these stand for two processes of one machine.
  const machine = "machine-1";
  const stopped = 4001;
  const processOf = (pid: number, alive: (pid: number) => boolean, host = machine): LeaseProcess => ({
    host,
    pid,
    isAlive: alive,
  });

  /** An import of 5 rows left PROCESSING after its first batch of 2 by node-old, whose lease names `holder`. */
  async function leftBehind(holder: LeaseProcess): Promise<FileStatusRecord> {
    const restore = failAppends(stores, 2, "stopped");
    const old = service({ batchRows: 2, nodeId: "node-old", lease: { process: holder } });
    await old.receive(
      "acme",
      "main",
      "purchases_20.csv",
      "upload",
      chunks(header, ...Array.from({ length: 5 }, (_, index) => `r${index},${index},2024-01-31 09:30\n`)),
    );
    await expect(old.processNext()).rejects.toThrow("stopped");
    restore();
    const record = (await stores.files.find("acme", "main", "purchases_20.csv")) as FileStatusRecord;
    // The process stopped while it held the import's lease (a failure lets it go; a crash does not).
    expect(
      await createLease(
        stores.settings,
        `file-import.${record.id}`,
        "node-old#0000",
        importLeaseMs,
        Date.now,
        holder,
      ).acquire(),
    ).toBe(true);
    return record;
  }

  test("a restarted process (a new node id) goes on after the last batch, once, and records itself as the node", async () => {
    await leftBehind(processOf(stopped, () => true));
    const next = service({
      batchRows: 2,
      nodeId: "node-new",
      lease: { process: processOf(4002, (pid) => pid !== stopped) },
    });
    while ((await next.processNext()) > 0);
    const record = (await stores.files.find("acme", "main", "purchases_20.csv")) as FileStatusRecord;
    expect(record).toMatchObject({ finished: true, nodeId: "node-new" });
    expect(record.status.at(-1)).toMatchObject({ state: "PROCESSED", counts: { skipped: 0, failed: 0, succeeded: 5 } });
    expect((await allEvents(stores)).map((event) => event.data.email_address)).toEqual(["r0", "r1", "r2", "r3", "r4"]);
  });

  test("an import whose process still runs is left to it; on another machine, until its lease expires", async () => {
    await leftBehind(processOf(stopped, () => true));
    const alive = service({ nodeId: "node-new", lease: { process: processOf(4002, () => true) } });
    expect(await alive.processNext()).toBe(0);
    const elsewhere = service({ nodeId: "node-far", lease: { process: processOf(1, () => false, "machine-2") } });
    expect(await elsewhere.processNext()).toBe(0);
    expect((await stores.files.find("acme", "main", "purchases_20.csv"))?.finished).toBe(false);

    const later = service({
      batchRows: 2,
      nodeId: "node-far",
      lease: { process: processOf(1, () => false, "machine-2"), now: () => Date.now() + importLeaseMs + 1 },
    });
    while ((await later.processNext()) > 0);
    expect(await stores.files.find("acme", "main", "purchases_20.csv")).toMatchObject({
      finished: true,
      nodeId: "node-far",
    });
    expect(await allEvents(stores)).toHaveLength(5);
  });

  test("a node of another machine without the received file leaves the import alone; a download left unfinished fails on any node", async () => {
    const record = await leftBehind(processOf(stopped, () => true));
    rmSync(join(dataDir, "files"), { recursive: true, force: true });
    const other = service({
      nodeId: "node-new",
      host: "host-b",
      lease: { process: processOf(4002, (pid) => pid !== stopped) },
    });
    expect(await other.processNext()).toBe(0);
    expect(await stores.files.find("acme", "main", "purchases_20.csv")).toMatchObject({
      finished: false,
      nodeId: "node-old",
    });

    await stores.files.create({
      ...record,
      id: "b".repeat(24),
      name: "purchases_21.csv",
      nodeId: "node-old",
      status: [{ state: "DOWNLOADING", at: now }],
      finished: false,
      progress: null,
    });
    await createLease(
      stores.settings,
      `file-import.${"b".repeat(24)}`,
      "node-old#0000",
      importLeaseMs,
      Date.now,
      processOf(stopped, () => true),
    ).acquire();
    expect(await other.processNext()).toBe(1);
    expect(await stores.files.find("acme", "main", "purchases_21.csv")).toMatchObject({
      nodeId: "node-new",
      status: [{ state: "DOWNLOADING", at: now, lastFailure: "Failed to download (FTP, SFTP, S3) file" }],
    });
  });
});

describe("the drop folder (DEC-FIL-02, DEC-OPS-04)", () => {
  test("a .csv file in inbox/{account}/{profile}/ is imported as source file and leaves the inbox; refused ones go to rejected/", async () => {
    const imports = service();
    await imports.prepareInboxes();
    const inbox = join(dataDir, "inbox", "acme", "main");
    expect(existsSync(inbox)).toBe(true);
    writeFileSync(join(inbox, "purchases_20.csv"), `${header}ann,1,2024-01-31 09:30\n`);
    writeFileSync(join(inbox, ".purchases_21.csv"), "being written");
    writeFileSync(join(inbox, "notes.txt"), "not a csv");
    mkdirSync(join(dataDir, "inbox", "acme", "nope"), { recursive: true });
    writeFileSync(join(dataDir, "inbox", "acme", "nope", "purchases_22.csv"), header);

    expect(await imports.pickUpDropped()).toBe(3);
    while ((await imports.processNext()) > 0);
    const record = (await stores.files.find("acme", "main", "purchases_20.csv")) as FileStatusRecord;
    expect(record.file.sourceType).toBe("file");
    expect(record.status.at(-1)?.counts).toEqual({ skipped: 0, failed: 0, succeeded: 1 });
    // A name that cannot be imported is refused where the operator sees it, not left in the inbox for good.
    expect(readdirSync(inbox).sort()).toEqual([".purchases_21.csv", "rejected"]);
    expect(readdirSync(join(inbox, "rejected"))).toEqual(["notes.txt"]);
    rmSync(join(inbox, "rejected"), { recursive: true });
    expect(readdirSync(join(dataDir, "inbox", "acme", "nope", "rejected"))).toEqual(["purchases_22.csv"]);

    // The same name dropped again is not imported twice.
    writeFileSync(join(inbox, "purchases_20.csv"), header);
    expect(await imports.pickUpDropped()).toBe(1);
    expect(readdirSync(join(inbox, "rejected"))).toEqual(["purchases_20.csv"]);
    expect(await imports.pickUpDropped()).toBe(0);

    // Refused again under the same name: both are kept.
    writeFileSync(join(inbox, "purchases_20.csv"), "second");
    writeFileSync(join(inbox, "purchases_1.CSV"), "upper case");
    expect(await imports.pickUpDropped()).toBe(2);
    expect(readdirSync(join(inbox, "rejected")).sort()).toEqual([
      "purchases_1.CSV",
      "purchases_20.csv",
      "purchases_20~2.csv",
    ]);
    expect(readFileSync(join(inbox, "rejected", "purchases_20~2.csv"), "utf8")).toBe("second");
    expect(readFileSync(join(inbox, "rejected", "purchases_20.csv"), "utf8")).toBe(header);
  });

  test("a dropped file that cannot be stored is kept in rejected/, and the same name can be dropped again once it can", async () => {
    const imports = service();
    const inbox = join(dataDir, "inbox", "acme", "main");
    mkdirSync(inbox, { recursive: true });
    // Where the copy is written is taken by a folder: the store fails as a full disk would.
    mkdirSync(join(dataDir, "files", "acme", "main", "purchases_30.csv.part"), { recursive: true });
    const content = `${header}ann,1,2024-01-31 09:30\n`;
    writeFileSync(join(inbox, "purchases_30.csv"), content);
    expect(await imports.pickUpDropped()).toBe(1);
    expect(readFileSync(join(inbox, "rejected", "purchases_30.csv"), "utf8")).toBe(content);
    expect((await stores.files.find("acme", "main", "purchases_30.csv"))?.status).toEqual([
      { state: "DOWNLOADING", at: now, lastFailure: "Failed to download (FTP, SFTP, S3) file" },
    ]);

    rmSync(join(dataDir, "files", "acme", "main", "purchases_30.csv.part"), { recursive: true });
    writeFileSync(join(inbox, "purchases_30.csv"), content);
    expect(await imports.pickUpDropped()).toBe(1);
    while ((await imports.processNext()) > 0);
    expect((await stores.files.find("acme", "main", "purchases_30.csv"))?.status.at(-1)).toMatchObject({
      state: "PROCESSED",
      counts: { skipped: 0, failed: 0, succeeded: 1 },
    });
  });

  test("a dropped file is taken once this node has seen it unchanged for the settle time, by its own clock", async () => {
    let clock = 1_000_000;
    const imports = service({ dropSettleMs: 2_000, settleClock: () => clock });
    const inbox = join(dataDir, "inbox", "acme", "main");
    mkdirSync(inbox, { recursive: true });
    const path = join(inbox, "purchases_33.csv");
    writeFileSync(path, header);
    expect(await imports.pickUpDropped()).toBe(0);
    clock += 1_500;
    appendFileSync(path, "ann,1,2024-01-31 09:30\n");
    // Still being written: the wait starts again from this look.
    expect(await imports.pickUpDropped()).toBe(0);
    clock += 1_999;
    expect(await imports.pickUpDropped()).toBe(0);
    expect(existsSync(path)).toBe(true);
    clock += 1;
    expect(await imports.pickUpDropped()).toBe(1);
    while ((await imports.processNext()) > 0);
    expect((await stores.files.find("acme", "main", "purchases_33.csv"))?.status.at(-1)).toMatchObject({
      state: "PROCESSED",
      counts: { succeeded: 1 },
    });
    expect(dropSettleMs).toBe(2_000);

    // Stamped by a clock an hour ahead (cp -p from such a machine): taken once seen unchanged, not in an hour.
    const ahead = join(inbox, "purchases_34.csv");
    writeFileSync(ahead, `${header}bob,2,2024-01-31 09:30\n`);
    utimesSync(ahead, new Date(Date.now() + 3_600_000), new Date(Date.now() + 3_600_000));
    expect(await imports.pickUpDropped()).toBe(0);
    clock += 2_000;
    expect(await imports.pickUpDropped()).toBe(1);
  });

  test("[DEC-OPS-04] what a wait waits for: a dropped file until it is taken, an import another node holds until it is finished", async () => {
    let clock = 1_000_000;
    const imports = service({ dropSettleMs: 2_000, settleClock: () => clock });
    const inbox = join(dataDir, "inbox", "acme", "main");
    mkdirSync(inbox, { recursive: true });
    expect(await imports.nextDueAt()).toBeNull();
    writeFileSync(join(inbox, "purchases_35.csv"), `${header}ann,1,2024-01-31 09:30\n`);
    expect(await imports.pickUpDropped()).toBe(0);
    // Seen, not yet settled: due when it will be, on the virtual clock.
    expect(await imports.nextDueAt()).toBe(now + 2_000);
    clock += 1_500;
    expect(await imports.nextDueAt()).toBe(now + 500);
    clock += 500;
    expect(await imports.pickUpDropped()).toBe(1);

    // Received, and its lease held by another node: due since its last state, until that node finishes it.
    const record = (await stores.files.find("acme", "main", "purchases_35.csv")) as FileStatusRecord;
    expect(await createLease(stores.settings, `file-import.${record.id}`, "node-b#0001", importLeaseMs).acquire()).toBe(
      true,
    );
    expect(await imports.processNext()).toBe(0);
    expect(await imports.nextDueAt()).toBe(record.status.at(-1)?.at ?? -1);
    await createLease(stores.settings, `file-import.${record.id}`, "node-b#0001", importLeaseMs).release();
    while ((await imports.processNext()) > 0);
    expect(await imports.nextDueAt()).toBeNull();
  });

  test("a file claimed by a process that stopped while it received it is given back and taken again", async () => {
    const inbox = join(dataDir, "inbox", "acme", "main");
    mkdirSync(inbox, { recursive: true });
    // 4194305 is above Linux's largest process id: no such process.
    writeFileSync(join(inbox, ".importing.4194305.0123abcd.purchases_31.csv"), `${header}bob,2,2024-01-31 09:30\n`);
    writeFileSync(join(inbox, `.importing.${process.pid}.0123abcd.purchases_32.csv`), header);
    expect(await service().pickUpDropped()).toBe(0);
    expect(readdirSync(inbox).sort()).toEqual(
      [`.importing.${process.pid}.0123abcd.purchases_32.csv`, ".importing.4194305.0123abcd.purchases_31.csv"].sort(),
    );

    // Both are given back once old enough: the second names this process's id but is none of its claims (an
    // earlier process given the same id, as PID 1 in a container after a restart).
    const imports = service({ claimGiveBackMs: 0 });
    expect(await imports.pickUpDropped()).toBe(2);
    while ((await imports.processNext()) > 0);
    expect((await stores.files.find("acme", "main", "purchases_31.csv"))?.status.at(-1)).toMatchObject({
      state: "PROCESSED",
      counts: { succeeded: 1 },
    });
    expect((await stores.files.find("acme", "main", "purchases_32.csv"))?.status.at(-1)).toMatchObject({
      state: "PROCESSED",
    });
    expect(readdirSync(inbox)).toEqual([]);
  });

  test("a claim left after its file was received whole (the process stopped before removing it) is removed, not given back to be refused", async () => {
    const inbox = join(dataDir, "inbox", "acme", "main");
    mkdirSync(inbox, { recursive: true });
    const text = `${header}bob,2,2024-01-31 09:30\n`;
    await importText("purchases_34.csv", text);
    writeFileSync(join(inbox, ".importing.4194305.0123abcd.purchases_34.csv"), text);
    // The same name, other bytes: a new file, which is given back (and then refused as a name imported).
    writeFileSync(join(inbox, ".importing.4194305.0123abce.purchases_34.csv"), `${text}carl,3,2024-01-31 09:31\n`);
    expect(await service({ claimGiveBackMs: 0 }).pickUpDropped()).toBe(1);
    expect(readdirSync(inbox).sort()).toEqual(["rejected"]);
    expect(readdirSync(join(inbox, "rejected"))).toEqual(["purchases_34.csv"]);
    expect(readFileSync(join(inbox, "rejected", "purchases_34.csv"), "utf8")).toContain("carl");
  });

  test("a dropped file whose receipt failed on a store error is given back and imported at a later look, without a restart", async () => {
    const inbox = join(dataDir, "inbox", "acme", "main");
    mkdirSync(inbox, { recursive: true });
    writeFileSync(join(inbox, "purchases_33.csv"), `${header}bob,2,2024-01-31 09:30\n`);
    const create = stores.files.create.bind(stores.files);
    stores.files.create = async () => {
      throw new Error("SQLITE_BUSY: database is locked");
    };
    const imports = service();
    await expect(imports.pickUpDropped()).rejects.toThrow("SQLITE_BUSY");
    expect(readdirSync(inbox).filter((name) => name.startsWith(".importing."))).toHaveLength(1);
    stores.files.create = create;
    expect(await imports.pickUpDropped()).toBe(1);
    while ((await imports.processNext()) > 0);
    expect((await stores.files.find("acme", "main", "purchases_33.csv"))?.status.at(-1)).toMatchObject({
      state: "PROCESSED",
      counts: { succeeded: 1 },
    });
    expect(readdirSync(inbox)).toEqual([]);
  });
});
