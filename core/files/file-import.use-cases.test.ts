/**
 * The import pipeline against the in-memory store, with its files in memory: the counters and events of good
 * files (DEC-FIL-04), the failure messages of the catalogue that depend on what the rows hold (FIL-09,
 * DEC-FIL-03), receiving, the leases of imports and recovery after a crash. What depends on the files on disk,
 * the CSV dialect of csv-parse or the processes named in leases is in adapters/fs/file-import.fs.test.ts.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { countingIds, silentLogger, storesRefusingNul } from "../../testing/fakes.ts";
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
import { classifyFileFailure, fileFailureMessage } from "../errors/index.ts";
import type {
  ByteRange,
  ByteSource,
  CsvRow,
  CsvRowSource,
  DropFolderInbox,
  EventLoop,
  FileStatusRecord,
  KeptFile,
  LeaseFactory,
  ReceiveDropped,
  ReceivedFileStorage,
  RepeatingTimer,
  RowReadingFailure,
  SettingsStore,
  StoredBytes,
  Stores,
} from "../ports/index.ts";
import { ok } from "../result.ts";
import { mayBeReceivedAgain } from "./file-import.machine.ts";
import { FileImportService, importLeaseMs } from "./file-import.use-cases.ts";
import { FileStatusService } from "./file-status.use-cases.ts";

const newline = 0x0a;

const keyOf = (account: string, profile: string, name: string) => `${account}/${profile}/${name}`;

/** FNV-1a of the bytes, in hex: a checksum that differs with the bytes, standing for the MD5 of the disk's storage. */
function checksumOf(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, "0");
}

function concatenated(chunks: readonly Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/**
 * The received files in memory, their text by account/profile/name, counted as the disk's storage counts them;
 * `sharedByNodes` as the database's storage, whose files every node reads.
 */
class MemoryReceivedFiles implements ReceivedFileStorage {
  readonly checksumOfNothing = checksumOf(new Uint8Array());
  readonly kept = new Map<string, string>();

  constructor(readonly sharedByNodes = false) {}

  async write(account: string, profile: string, name: string, body: ByteSource | null): Promise<StoredBytes> {
    const chunks: Uint8Array[] = [];
    let newlines = 0;
    const received = () => {
      const bytes = concatenated(chunks);
      const size = bytes.byteLength;
      return {
        size,
        checksum: checksumOf(bytes),
        lineCount: newlines + (size > 0 && bytes[size - 1] !== newline ? 1 : 0),
      };
    };
    try {
      for await (const chunk of body ?? []) {
        chunks.push(chunk);
        for (const byte of chunk) if (byte === newline) newlines += 1;
      }
    } catch (error) {
      return { ok: false, error: String(error), received: received() };
    }
    this.kept.set(keyOf(account, profile, name), new TextDecoder().decode(concatenated(chunks)));
    return { ok: true, received: received() };
  }

  async *read(file: KeptFile): AsyncGenerator<Uint8Array> {
    const text = this.kept.get(keyOf(file.account, file.profile, file.name));
    if (text === undefined) throw new Error(`no such file: ${file.name}`);
    yield new TextEncoder().encode(text);
  }

  async holds(account: string, profile: string, name: string): Promise<boolean> {
    return this.kept.has(keyOf(account, profile, name));
  }

  async namesIn(account: string, profile: string): Promise<string[]> {
    const folder = keyOf(account, profile, "");
    return [...this.kept.keys()].filter((key) => key.startsWith(folder)).map((key) => key.slice(folder.length));
  }

  async *everyFile(): AsyncGenerator<KeptFile> {
    for (const key of [...this.kept.keys()].sort()) {
      const [account = "", profile = "", name = ""] = key.split("/");
      yield { account, profile, name };
    }
  }

  async rewriteWithout(file: KeptFile, ranges: readonly ByteRange[]): Promise<void> {
    const key = keyOf(file.account, file.profile, file.name);
    const text = this.kept.get(key);
    if (text === undefined) throw new Error(`no such file: ${file.name}`);
    const bytes = new TextEncoder().encode(text);
    const outside = bytes.filter((_, at) => !ranges.some(([from, to]) => at >= from && at < to));
    this.kept.set(key, new TextDecoder().decode(outside));
  }

  async remove(account: string, profile: string, name: string): Promise<void> {
    this.kept.delete(keyOf(account, profile, name));
  }

  async removePartial(): Promise<void> {}

  async eraseAll(): Promise<number> {
    const removed = this.kept.size;
    this.kept.clear();
    return removed;
  }
}

class RecordTooLong extends Error {}

/**
 * The rows of the files in memory: only the plain CSV these tests write (no quotes inside a field, no line end
 * inside quotes), one line a record, a record longer than the limit stopping the reading.
 */
class MemoryCsvRows implements CsvRowSource {
  constructor(private readonly files: MemoryReceivedFiles) {}

  async *rowsOf(file: KeptFile, maxRecordBytes: number): AsyncGenerator<CsvRow> {
    const text = this.files.kept.get(keyOf(file.account, file.profile, file.name));
    if (text === undefined) throw new Error(`no such file: ${file.name}`);
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    for (const [index, line] of lines.entries()) {
      if (line.length > maxRecordBytes) throw new RecordTooLong(`record on line ${index + 1}`);
      yield { fields: line.split(",").map((field) => field.replace(/^"(.*)"$/, "$1")), line: index + 1 };
    }
  }

  failureOf(error: unknown): RowReadingFailure {
    return error instanceof RecordTooLong ? "recordTooLarge" : "other";
  }
}

/** Drop folders in memory: the files dropped (their bytes), those kept aside with why, and the folders prepared. */
class MemoryInbox implements DropFolderInbox {
  readonly dropped = new Map<string, () => ByteSource>();
  readonly rejected = new Map<string, string>();
  readonly prepared: string[] = [];

  async prepare(account: string, profile: string): Promise<void> {
    this.prepared.push(`${account}/${profile}`);
  }

  async pickUp(receive: ReceiveDropped): Promise<number> {
    let taken = 0;
    for (const [key, bytes] of [...this.dropped].sort()) {
      const [account = "", profile = "", name = ""] = key.split("/");
      this.dropped.delete(key);
      taken += 1;
      const receipt = await receive(account, profile, name, bytes());
      if (!receipt.stored) this.rejected.set(key, receipt.reason);
    }
    return taken;
  }

  untilSettled(): number | null {
    return null;
  }

  async eraseAll(): Promise<number> {
    const removed = this.dropped.size + this.rejected.size;
    this.dropped.clear();
    this.rejected.clear();
    return removed;
  }

  forget(): void {}
}

/** Leases on the settings as the store's leases keep them (`lease.<name>`: `holder|expiresAt`), without processes. */
function settingsLeases(settings: SettingsStore, realNow: () => number): LeaseFactory {
  return (name, holder, ttlMs) => {
    const key = `lease.${name}`;
    const ownerOf = (value: string) => value.slice(0, value.lastIndexOf("|"));
    const expiryOf = (value: string) => Number(value.slice(value.lastIndexOf("|") + 1));
    return {
      async acquire() {
        const now = realNow();
        const current = await settings.get(key);
        if (current !== null && ownerOf(current) !== holder && expiryOf(current) > now) return false;
        return settings.compareAndSet(key, current, `${holder}|${now + ttlMs}`);
      },
      async release() {
        const current = await settings.get(key);
        if (current !== null && ownerOf(current) === holder) await settings.compareAndSet(key, current, `${holder}|0`);
      },
      async end() {
        const current = await settings.get(key);
        if (current !== null && ownerOf(current) === holder) await settings.deleteIf(key, current);
      },
    };
  };
}

/** Timers that never fire by themselves: the test runs them, and sees which are still running. */
class ManualTimers implements RepeatingTimer {
  readonly running = new Map<number, { readonly ms: number; readonly action: () => void }>();
  private next = 0;

  every(ms: number, action: () => void): () => void {
    const id = this.next++;
    this.running.set(id, { ms, action });
    return () => this.running.delete(id);
  }
}

let stores: Stores;
let files: MemoryReceivedFiles;
let inbox: MemoryInbox;
let timers: ManualTimers;
let now: number;
let realMs: number;
let notified: number;

const eventLoop: EventLoop = {
  monotonicMs: () => realMs,
  nextTurn: () => Promise.resolve(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** An import service of `node-a` on `host-a`, on this test's files in memory. */
function service(
  options: { maxRecordBytes?: number; batchRows?: number; nodeId?: string; host?: string } = {},
): FileImportService {
  return new FileImportService({
    stores,
    clock: { now: () => now },
    ids: countingIds(),
    nodeId: options.nodeId ?? "node-a",
    host: options.host ?? "host-a",
    files,
    rows: new MemoryCsvRows(files),
    dropFolders: inbox,
    leases: settingsLeases(stores.settings, () => realMs),
    eventLoop,
    timer: timers,
    maxRecordBytes: options.maxRecordBytes ?? 16 * 1024 * 1024,
    logger: silentLogger,
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

/** The fields of `value` that `shape` names, nested objects and arrays alike: what toMatchObject compares. */
function pickedLike(value: unknown, shape: unknown): unknown {
  if (Array.isArray(shape) && Array.isArray(value))
    return value.map((item, index) => (index < shape.length ? pickedLike(item, shape[index]) : item));
  if (
    shape !== null &&
    typeof shape === "object" &&
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value)
  ) {
    const object = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(shape)
        .filter(([key]) => key in object)
        .map(([key, inner]) => [key, pickedLike(object[key], inner)]),
    );
  }
  return value;
}

/** Asserts that `value` has every field of `shape` with its value (bun's toMatchObject). */
function assertMatches(value: unknown, shape: object): void {
  assert.deepEqual(pickedLike(value, shape), shape);
}

const utf8Length = (text: string) => new TextEncoder().encode(text).byteLength;

beforeEach(async () => {
  stores = createMemoryStores();
  await seedProfile(stores, importingProfile);
  files = new MemoryReceivedFiles();
  inbox = new MemoryInbox();
  timers = new ManualTimers();
  now = Date.UTC(2024, 0, 31, 9, 30);
  realMs = 1_000;
  notified = 0;
});

afterEach(async () => {
  await stores.close();
});

describe("a good file (DEC-FIL-03, DEC-FIL-04)", () => {
  it("each row is an event of the known visitor with its line number, the file name and the mapped values", async () => {
    await importText(
      "purchases_2.csv",
      `${header}ann@example.com,12.5,2024-01-31 09:30\n"bob@example.com","3","2024-02-01 10:00"\n`,
    );
    const events = await allEvents(stores);
    assert.deepEqual(
      events.map((event) => [
        event.visitorId,
        event.event,
        event.data._file_line_num,
        event.data._source_file,
        event.data.amount,
        event.data.email_address,
      ]),
      [
        ["__acme_main__5120_ann@example.com__", "purchase", 2, "purchases_2.csv", 12.5, "ann@example.com"],
        ["__acme_main__5120_bob@example.com__", "purchase", 3, "purchases_2.csv", 3, "bob@example.com"],
      ],
    );
    assert.equal(events[1]?.data.purchased_at, Date.UTC(2024, 1, 1, 10));
  });

  it("rows that fail are counted, the rest imported, and PROCESSED names the last row failure", async () => {
    const record = await importText(
      "purchases_3.csv",
      `${header}ann,x,2024-01-31 09:30\nbob,1,31/01/2024\ncid,2,2024-01-31 09:30\n`,
    );
    assert.deepEqual(record.status.at(-1), {
      state: "PROCESSED",
      at: now,
      counts: { skipped: 0, failed: 2, succeeded: 1 },
      lastFailure: "yyyy-MM-dd HH:mm could not be parsed as a Date",
    });
    assert.deepEqual(
      (await allEvents(stores)).map((event) => event.data.email_address),
      ["cid"],
    );
  });

  it("events are written in batches of the configured size", async () => {
    const appended: number[] = [];
    const append = stores.events.append.bind(stores.events);
    stores.events.append = async (events) => {
      appended.push(events.length);
      return append(events);
    };
    const rows = Array.from({ length: 7 }, (_, index) => `u${index},${index},2024-01-31 09:30\n`).join("");
    const record = await importText("purchases_4.csv", header + rows, service({ batchRows: 3 }));
    assert.deepEqual(appended, [3, 3, 1]);
    assert.deepEqual(record.status.at(-1)?.counts, { skipped: 0, failed: 0, succeeded: 7 });
  });
});

describe("every failure message an import can meet, each reproduced by a file (FIL-09, DEC-FIL-03)", () => {
  it("Unknown file prefix: on PROCESSING, nothing imported", async () => {
    const record = await importText("purchase_1.csv", `${header}ann,1,2024-01-31 09:30\n`);
    assert.equal(record.prefix, "purchase");
    assert.deepEqual(states(record), ["DOWNLOADING", "DOWNLOADED", "PROCESSING"]);
    assert.equal(record.status.at(-1)?.lastFailure, "Unknown file prefix, unable to parse file");
    assert.equal(record.finished, true);
    assert.deepEqual(await allEvents(stores), []);
    // PRV-09: a file no definition reads keeps no copy, so no personal data stays where no deletion reaches.
    assert.equal(await files.holds("acme", "main", "purchase_1.csv"), false);
  });

  it("Secondary visitor ID column missing: names the column", async () => {
    const record = await importText("purchases_5.csv", "mail,amount,purchased_at\nann,1,2024-01-31 09:30\n");
    assert.deepEqual(record.status.at(-1), {
      state: "PROCESSING",
      at: now,
      lastFailure: "Secondary visitor ID column= email does not exist in the file, unable to continue",
    });
    assert.equal(await files.holds("acme", "main", "purchases_5.csv"), false);
    // A file with rows imported keeps its copy (the privacy API erases rows from it).
    await importText("purchases_6.csv", `${header}ann,1,2024-01-31 09:30\n`);
    assert.equal(await files.holds("acme", "main", "purchases_6.csv"), true);
  });

  it("an empty file has no visitor ID column either", async () => {
    const record = await importText("purchases_empty.csv", "");
    assert.equal(record.file.size, 0);
    assert.equal(record.file.lineCount, 0);
    assert.equal(
      record.status.at(-1)?.lastFailure,
      "Secondary visitor ID column= email does not exist in the file, unable to continue",
    );
  });

  it("The number of columns ... CellProcessors: a mapped column missing from the header", async () => {
    const record = await importText("purchases_6.csv", "email,amount\nann,1\n");
    assert.equal(
      record.status.at(-1)?.lastFailure,
      fileFailureMessage("columnCountMismatch", { columns: 2, processors: 3 }),
    );
    assert.deepEqual(await allEvents(stores), []);
  });

  it("The number of columns ... CellProcessors: a row with more or fewer fields than the header fails that row", async () => {
    const record = await importText("purchases_7.csv", `${header}ann,1\nbob,1,2024-01-31 09:30\n`);
    assert.deepEqual(record.status.at(-1), {
      state: "PROCESSED",
      at: now,
      counts: { skipped: 0, failed: 1, succeeded: 1 },
      lastFailure: fileFailureMessage("columnCountMismatch", { columns: 2, processors: 3 }),
    });
  });

  it("{date_format} could not be parsed as a Date: the date format does not match the file", async () => {
    const record = await importText("purchases_8.csv", `${header}ann,1,2024-01-31T09:30:00Z\n`);
    assert.equal(record.status.at(-1)?.lastFailure, "yyyy-MM-dd HH:mm could not be parsed as a Date");
    assert.deepEqual(record.status.at(-1)?.counts, { skipped: 0, failed: 1, succeeded: 0 });
  });

  it("Exception thrown while processing file: a value that cannot be read as its type", async () => {
    const record = await importText("purchases_9.csv", `${header}ann,twelve,2024-01-31 09:30\n`);
    assert.equal(record.status.at(-1)?.lastFailure, "Exception thrown while processing file");
  });

  it("DBObject of size n is over Max BSON size n: the exact size of a row's document over a small limit; rows before it stay imported", async () => {
    const imports = service({ maxRecordBytes: 400 });
    const record = await importText(
      "notes_2.csv",
      `email,note\nann,short\nbob,${"x".repeat(200)}\ncid,after\n`,
      imports,
    );
    const last = record.status.at(-1);
    assert.deepEqual(states(record), ["DOWNLOADING", "DOWNLOADED", "PROCESSING"]);
    assert.equal(classifyFileFailure(last?.lastFailure ?? ""), "recordTooLarge");
    const [, size, max] = /^DBObject of size (\d+) is over Max BSON size (\d+)$/.exec(last?.lastFailure ?? "") ?? [];
    assert.equal(Number(max), 400);
    assert.ok(Number(size) > 400, `${size} is not over 400`);
    assert.deepEqual(last?.counts, { skipped: 0, failed: 0, succeeded: 1 });
    const events = await allEvents(stores);
    assert.deepEqual(
      events.map((event) => event.data.note),
      ["short"],
    );
    // The size named is that of the document the row would have made.
    assert.equal(
      Number(size),
      utf8Length(
        JSON.stringify({
          ...events[0],
          seq: undefined,
          // Given by the store as it appends the event, after the import sized its document.
          verdict: undefined,
          violations: undefined,
          data: {
            ...events[0]?.data,
            email_address: "bob",
            svc_visitor_id: "__acme_main__5120_bob__",
            note: "x".repeat(200),
            _file_line_num: 3,
          },
        }),
      ) - 0,
    );
  });

  it("the messages no import here can meet are the connection and attribute ones, which need remote sources or a configuration the loader refuses", () => {
    // Documented in docs/decisions.md (File import): invalidConnection (no FTP/SFTP/S3 sources yet) and attributeNotFound (the loader checks every column's attribute).
    assert.equal(classifyFileFailure(fileFailureMessage("invalidConnection")), "invalidConnection");
    assert.equal(classifyFileFailure(fileFailureMessage("attributeNotFound")), "attributeNotFound");
  });
});

describe("receiving (DEC-FIL-02, DEC-FIL-04)", () => {
  it("a name already imported is refused with 409, the first import untouched", async () => {
    const first = await importText("purchases_11.csv", `${header}ann,1,2024-01-31 09:30\n`);
    const again = await service().receive("acme", "main", "purchases_11.csv", "upload", chunks("x"));
    assert.deepEqual(again, {
      ok: false,
      error: {
        kind: "file-import",
        code: "alreadyImported",
        status: 409,
        message: "File purchases_11.csv has already been imported into acme/main; a file name is imported once",
      },
    });
    assert.deepEqual(await stores.files.find("acme", "main", "purchases_11.csv"), first);
  });

  it("unknown account or profile is 404 1240 / 1250; a bad name 400 naming fileName; nothing recorded", async () => {
    const imports = service();
    assertMatches(await imports.receive("nope", "main", "purchases_1.csv", "upload", null), {
      ok: false,
      error: { status: 404, returnCode: 1240 },
    });
    assertMatches(await imports.receive("acme", "nope", "purchases_1.csv", "upload", null), {
      ok: false,
      error: { status: 404, returnCode: 1250 },
    });
    const badName = await imports.receive("acme", "main", "../x_1.csv", "upload", null);
    assertMatches(badName, { ok: false, error: { status: 400, returnCode: 1400 } });
    assert.ok(!badName.ok && badName.error.message.includes("Invalid fileName"), JSON.stringify(badName));
    assert.deepEqual(await stores.files.unfinished(), []);
  });

  it("an import left DOWNLOADING by a crash ends with the download failure; one left PROCESSING resumes after its last batch", async () => {
    failAppends(stores, 2, "disk gone");
    const imports = service({ batchRows: 2 });
    await imports.receive(
      "acme",
      "main",
      "purchases_12.csv",
      "upload",
      chunks(header, ...Array.from({ length: 5 }, (_, index) => `u${index},${index},2024-01-31 09:30\n`)),
    );
    await assert.rejects(imports.processNext(), { message: /disk gone/ });
    const interrupted = (await stores.files.find("acme", "main", "purchases_12.csv")) as FileStatusRecord;
    assert.deepEqual(interrupted.progress, {
      rowsRead: 2,
      counts: { skipped: 0, failed: 0, succeeded: 2 },
      lastRowFailure: null,
    });

    // A new process (a new service) finds it and goes on from row 3.
    while ((await service({ batchRows: 2 }).processNext()) > 0);
    const record = (await stores.files.find("acme", "main", "purchases_12.csv")) as FileStatusRecord;
    assert.deepEqual(record.status.at(-1)?.counts, { skipped: 0, failed: 0, succeeded: 5 });
    assert.deepEqual(
      (await allEvents(stores)).map((event) => event.data.email_address),
      ["u0", "u1", "u2", "u3", "u4"],
    );

    const created = await stores.files.create({
      ...record,
      id: "a".repeat(24),
      name: "purchases_13.csv",
      status: [{ state: "DOWNLOADING", at: now }],
      finished: false,
      progress: null,
    });
    assert.equal(created, true);
    while ((await service().processNext()) > 0);
    assert.deepEqual((await stores.files.find("acme", "main", "purchases_13.csv"))?.status, [
      { state: "DOWNLOADING", at: now, lastFailure: "Failed to download (FTP, SFTP, S3) file" },
    ]);
  });

  it("a receipt renews its import's lease on a timer while the bytes come, and stops the timer once they are stored", async () => {
    const imports = service();
    let renewals: number[] = [];
    async function* watched(): AsyncIterable<Uint8Array> {
      yield new TextEncoder().encode(header);
      renewals = [...timers.running.values()].map((timer) => timer.ms);
      for (const timer of timers.running.values()) timer.action();
      yield new TextEncoder().encode("ann,1,2024-01-31 09:30\n");
    }
    const received = await imports.receive("acme", "main", "purchases_19.csv", "upload", watched());
    assert.equal(received.ok, true);
    assert.deepEqual(renewals, [importLeaseMs / 3]);
    assert.equal(timers.running.size, 0);
    assert.equal(notified, 1);
  });
});

describe("a crash between a batch's events and the import's progress (DEC-FIL-03)", () => {
  it("the import resumes after the rows stored, not before them: every row is one event, the counters exact, and the mark goes at the end", async () => {
    const update = stores.files.update.bind(stores.files);
    let failed = false;
    // The first batch's events commit; the record's progress write after them fails (the process dies there).
    stores.files.update = async (record) => {
      if (!failed && record.progress?.rowsRead === 2) {
        failed = true;
        throw new Error("killed");
      }
      return update(record);
    };
    const imports = service({ batchRows: 2 });
    await imports.receive(
      "acme",
      "main",
      "purchases_14.csv",
      "upload",
      chunks(header, ...Array.from({ length: 5 }, (_, index) => `m${index},${index},2024-01-31 09:30\n`)),
    );
    await assert.rejects(imports.processNext(), { message: /killed/ });
    const interrupted = (await stores.files.find("acme", "main", "purchases_14.csv")) as FileStatusRecord;
    assert.equal(interrupted.progress, null);
    assert.deepEqual(
      (await allEvents(stores)).map((event) => event.data.email_address),
      ["m0", "m1"],
    );

    while ((await service({ batchRows: 2 }).processNext()) > 0);
    const record = (await stores.files.find("acme", "main", "purchases_14.csv")) as FileStatusRecord;
    assertMatches(record.status.at(-1), { state: "PROCESSED", counts: { skipped: 0, failed: 0, succeeded: 5 } });
    assert.deepEqual(
      (await allEvents(stores)).map((event) => event.data.email_address),
      ["m0", "m1", "m2", "m3", "m4"],
    );
    assert.deepEqual(await stores.settings.keysStartingWith("import-progress."), []);
  });

  it("the copy of an import that imported nothing, left by a crash before its removal, is removed by the sweep", async () => {
    const failed = await importText("purchases_17.csv", "no,such,columns\n1,2,3\n");
    assert.equal(mayBeReceivedAgain(failed), true);
    files.kept.set(keyOf("acme", "main", "purchases_17.csv"), "no,such,columns\n1,2,3\n");
    const kept = await importText("purchases_18.csv", `${header}a,1,2024-01-31 09:30\n`);
    await service().sweepLeftLeases();
    assert.equal(await files.holds("acme", "main", "purchases_17.csv"), false);
    assert.equal(await files.holds("acme", "main", kept.name), true);
  });

  it("a progress mark left by a finished import is swept with the lease rows; one of an unfinished import stays", async () => {
    const done = await importText("purchases_15.csv", `${header}a,1,2024-01-31 09:30\n`, service());
    await stores.settings.set(
      `import-progress.${done.id}`,
      JSON.stringify({ rowsRead: 1, counts: { skipped: 0, failed: 0, succeeded: 1 }, lastRowFailure: null }),
    );
    const waiting = await service().receive("acme", "main", "purchases_16.csv", "upload", chunks(header));
    const waitingId = (waiting as { value: FileStatusRecord }).value.id;
    await stores.settings.set(`import-progress.${waitingId}`, "{}");
    await service().sweepLeftLeases();
    assert.deepEqual(await stores.settings.keysStartingWith("import-progress."), [`import-progress.${waitingId}`]);
  });
});

describe("the leases of imports (DEC-FIL-05)", () => {
  it("a receipt holds its import's lease from before its record exists: another node looking for unfinished imports leaves it alone", async () => {
    const other = service({ nodeId: "node-b", host: "host-b" });
    const create = stores.files.create.bind(stores.files);
    let looked = null as number | null;
    // The other node looks right after the record is committed, before the receipt goes on.
    stores.files.create = async (record) => {
      const created = await create(record);
      looked = await other.processNext();
      return created;
    };
    try {
      const received = await service().receive(
        "acme",
        "main",
        "purchases_12.csv",
        "upload",
        chunks(header, "ann,1,2024-01-31 09:30\n"),
      );
      assert.equal(looked, 0);
      assert.deepEqual(received.ok && received.value.status, [
        { state: "DOWNLOADING", at: now },
        { state: "DOWNLOADED", at: now },
      ]);
    } finally {
      stores.files.create = create;
    }
  });

  const leaseOf = (record: FileStatusRecord) => stores.settings.get(`lease.file-import.${record.id}`);

  it("an import that completed leaves no lease row", async () => {
    const record = await importText("purchases_30.csv", `${header}ann,1,2024-01-31 09:30\n`);
    assert.equal(record.status.at(-1)?.state, "PROCESSED");
    assert.equal(await leaseOf(record), null);
  });

  it("an import that failed leaves no lease row: while processing, or while receiving", async () => {
    const unknownPrefix = await importText("orders_1.csv", `${header}ann,1,2024-01-31 09:30\n`);
    assert.equal(unknownPrefix.status.at(-1)?.lastFailure, fileFailureMessage("unknownPrefix"));
    assert.equal(await leaseOf(unknownPrefix), null);

    async function* broken(): AsyncIterable<Uint8Array> {
      yield new TextEncoder().encode(header);
      throw new Error("connection reset");
    }
    const received = await service().receive("acme", "main", "purchases_31.csv", "upload", broken());
    if (!received.ok) throw new Error("refused");
    assert.equal(received.value.finished, true);
    assert.equal(await leaseOf(received.value), null);
  });

  it("an import stopped early keeps its lease row, given up, so another process takes over at once; it goes when that one finishes", async () => {
    const restore = failAppends(stores, 1, "disk gone", true);
    const imports = service();
    await imports.receive("acme", "main", "purchases_32.csv", "upload", chunks(header, "ann,1,2024-01-31 09:30\n"));
    await assert.rejects(imports.processNext(), { message: /disk gone/ });
    const interrupted = (await stores.files.find("acme", "main", "purchases_32.csv")) as FileStatusRecord;
    assert.equal(interrupted.finished, false);
    assert.match((await leaseOf(interrupted)) ?? "", /\|0$/);

    restore();
    while ((await service({ nodeId: "node-b" }).processNext()) > 0);
    assertMatches(await stores.files.find("acme", "main", "purchases_32.csv"), {
      finished: true,
      nodeId: "node-b",
    });
    assert.equal(await leaseOf(interrupted), null);
  });

  it("an import another node finished after this one listed it, and whose lease row is gone, is not processed again from the stale list", async () => {
    const imports = service();
    await imports.receive("acme", "main", "purchases_33.csv", "upload", chunks(header, "ann,1,2024-01-31 09:30\n"));
    const listed = await stores.files.unfinished();
    assert.ok(listed.map((record) => record.name).includes("purchases_33.csv"));
    while ((await imports.processNext()) > 0);
    const done = (await stores.files.find("acme", "main", "purchases_33.csv")) as FileStatusRecord;
    assert.equal(done.finished, true);
    assert.equal(await leaseOf(done), null);
    const eventsBefore = (await stores.events.query({ account: "acme", limit: 100_000 })).length;

    // node-b read the list before node-a finished: its lease is free (the row went), the list is stale.
    const unfinished = stores.files.unfinished.bind(stores.files);
    stores.files.unfinished = async () => listed;
    try {
      assert.equal(await service({ nodeId: "node-b" }).processNext(), 0);
    } finally {
      stores.files.unfinished = unfinished;
    }
    assert.deepEqual(await stores.files.find("acme", "main", "purchases_33.csv"), done);
    assert.equal((await stores.events.query({ account: "acme", limit: 100_000 })).length, eventsBefore);
  });

  it("the lease rows are swept at most once per leaseSweepMs of real time", async () => {
    const sweeper = service();
    await stores.settings.set(`lease.file-import.${"c".repeat(24)}`, "node-gone#0001|0");
    assert.equal(await sweeper.sweepLeftLeases(), 1);
    await stores.settings.set(`lease.file-import.${"d".repeat(24)}`, "node-gone#0001|0");
    realMs += 10 * 60_000 - 1;
    assert.equal(await sweeper.sweepLeftLeases(), 0);
    realMs += 1;
    assert.equal(await sweeper.sweepLeftLeases(), 1);
    assert.deepEqual(await stores.settings.keysStartingWith("lease.file-import."), []);
  });
});

describe("an import whose node stopped, its file kept where every node reads it (DEC-FIL-05)", () => {
  /**
   * An import of 5 rows that node-a on host-a left PROCESSING after its first batch of 2, its lease still
   * naming node-a until it expires (a crash keeps it; a failure would have given it up).
   */
  async function leftByNodeA(name: string): Promise<FileStatusRecord> {
    const restore = failAppends(stores, 2, "stopped");
    const imports = service({ batchRows: 2 });
    const rows = Array.from({ length: 5 }, (_, index) => `r${index},${index},2024-01-31 09:30\n`);
    await imports.receive("acme", "main", name, "upload", chunks(header, ...rows));
    await assert.rejects(imports.processNext(), { message: /stopped/ });
    restore();
    const record = (await stores.files.find("acme", "main", name)) as FileStatusRecord;
    await stores.settings.set(`lease.file-import.${record.id}`, `node-a#0000|${realMs + importLeaseMs}`);
    return record;
  }

  it("a node of another machine goes on with it once its lease expires, after its last batch, and becomes its node", async () => {
    files = new MemoryReceivedFiles(true);
    await leftByNodeA("purchases_40.csv");
    const nodeB = service({ batchRows: 2, nodeId: "node-b", host: "host-b" });
    assert.equal(await nodeB.processNext(), 0);
    realMs += importLeaseMs;
    while ((await nodeB.processNext()) > 0);
    const record = (await stores.files.find("acme", "main", "purchases_40.csv")) as FileStatusRecord;
    assertMatches(record, { finished: true, nodeId: "node-b" });
    assertMatches(record.status.at(-1), { state: "PROCESSED", counts: { skipped: 0, failed: 0, succeeded: 5 } });
    assert.deepEqual(
      (await allEvents(stores)).map((event) => event.data.email_address),
      ["r0", "r1", "r2", "r3", "r4"],
    );
  });

  it("one whose file is gone fails on another machine's node as it would where it was received; files of each node's own wait for that node", async () => {
    files = new MemoryReceivedFiles(true);
    await leftByNodeA("purchases_41.csv");
    files.kept.clear();
    realMs += importLeaseMs;
    const nodeB = () => service({ nodeId: "node-b", host: "host-b" });
    while ((await nodeB().processNext()) > 0);
    assertMatches(await stores.files.find("acme", "main", "purchases_41.csv"), {
      finished: true,
      nodeId: "node-b",
      status: [{}, {}, { state: "PROCESSING", lastFailure: fileFailureMessage("processingException") }],
    });

    files = new MemoryReceivedFiles(false);
    await leftByNodeA("purchases_42.csv");
    files.kept.clear();
    realMs += importLeaseMs;
    assert.equal(await nodeB().processNext(), 0);
    assertMatches(await stores.files.find("acme", "main", "purchases_42.csv"), { finished: false, nodeId: "node-a" });
  });
});

describe("the drop folder (DEC-FIL-02, DEC-OPS-04)", () => {
  it("a dropped file is received as a file and imported; one refused, or whose download failed, is given back with why", async () => {
    const imports = service();
    await imports.prepareInboxes();
    assert.deepEqual(inbox.prepared, ["acme/main"]);
    async function* broken(): AsyncIterable<Uint8Array> {
      yield new TextEncoder().encode(header);
      throw new Error("connection reset");
    }
    inbox.dropped.set(keyOf("acme", "main", "purchases_20.csv"), () => chunks(`${header}ann,1,2024-01-31 09:30\n`));
    inbox.dropped.set(keyOf("acme", "main", "purchases_21.csv"), broken);
    inbox.dropped.set(keyOf("acme", "nope", "purchases_22.csv"), () => chunks(header));
    assert.equal(await imports.pickUpDropped(), 3);
    while ((await imports.processNext()) > 0);
    const record = (await stores.files.find("acme", "main", "purchases_20.csv")) as FileStatusRecord;
    assert.equal(record.file.sourceType, "file");
    assert.deepEqual(record.status.at(-1)?.counts, { skipped: 0, failed: 0, succeeded: 1 });
    const refusal = await imports.receive("acme", "nope", "purchases_22.csv", "file", null);
    assert.ok(!refusal.ok);
    assert.deepEqual([...inbox.rejected].sort(), [
      [keyOf("acme", "main", "purchases_21.csv"), "it could not be stored"],
      [keyOf("acme", "nope", "purchases_22.csv"), refusal.error.message],
    ]);
    assert.deepEqual(inbox.dropped.size, 0);
  });

  it("the wait for the drop folders and the reset go to the folders: when a dropped file settles, erasing, forgetting", async () => {
    const imports = service();
    assert.equal(await imports.nextDueAt(), null);
    inbox.untilSettled = () => 1_500;
    assert.equal(await imports.nextDueAt(), now + 1_500);
    inbox.dropped.set(keyOf("acme", "main", "purchases_23.csv"), () => chunks(header));
    await files.write("acme", "main", "purchases_24.csv", chunks(header));
    assert.deepEqual(await imports.eraseFiles(), { received: 1, dropped: 1 });
    let forgotten = 0;
    inbox.forget = () => {
      forgotten += 1;
    };
    imports.forget();
    assert.equal(forgotten, 1);
  });
});

describe("receiving a name again (DEC-FIL-04)", () => {
  it("after a failed download or a header that did not match, the same name is received again; after rows were imported, 409", async () => {
    const imports = service();
    async function* breaksOff(): AsyncIterable<Uint8Array> {
      yield new TextEncoder().encode(header);
      throw new Error("connection reset");
    }
    assert.equal((await imports.receive("acme", "main", "purchases_40.csv", "upload", breaksOff())).ok, true);
    const again = await imports.receive(
      "acme",
      "main",
      "purchases_40.csv",
      "upload",
      chunks("email_wrong,amount,purchased_at\n", "ann,1,2024-01-31 09:30\n"),
    );
    assertMatches(again, { ok: true, value: { status: [{ state: "DOWNLOADING" }, { state: "DOWNLOADED" }] } });
    while ((await imports.processNext()) > 0);
    assert.ok(
      (await stores.files.find("acme", "main", "purchases_40.csv"))?.status
        .at(-1)
        ?.lastFailure?.includes("Secondary visitor ID column"),
    );

    assert.equal(
      (await imports.receive("acme", "main", "purchases_40.csv", "upload", chunks(header, "ann,1,2024-01-31 09:30\n")))
        .ok,
      true,
    );
    while ((await imports.processNext()) > 0);
    assertMatches((await stores.files.find("acme", "main", "purchases_40.csv"))?.status.at(-1), {
      state: "PROCESSED",
      counts: { succeeded: 1 },
    });
    assertMatches(await imports.receive("acme", "main", "purchases_40.csv", "upload", chunks(header)), {
      ok: false,
      error: { status: 409 },
    });
    assert.equal((await allEvents(stores)).length, 1);
  });
});

describe("names holding U+0000, which no store keeps (second probe, finding 4)", () => {
  it("a file received for an account or profile holding one is 404 1240 / 1250, and no store is asked", async () => {
    const refusing = storesRefusingNul(stores);
    stores = refusing;
    const imports = service();
    assertMatches(await imports.receive("acme\u0000", "main", "purchases_1.csv", "upload", null), {
      ok: false,
      error: { status: 404, returnCode: 1240 },
    });
    assertMatches(await imports.receive("acme", "main\u0000", "purchases_1.csv", "upload", null), {
      ok: false,
      error: { status: 404, returnCode: 1250 },
    });
    assert.deepEqual(refusing.asked, []);
  });

  it("the status of a file or a prefix holding one is not found, or none, and no store is asked", async () => {
    await importText("purchases_1.csv", `${header}ann@example.com,10,2025-01-01 10:00\n`);
    const refusing = storesRefusingNul(stores);
    const status = new FileStatusService({ stores: refusing });
    const dates = { startDate: "2000-01-01T00:00Z", endDate: "2100-01-01T00:00Z" };
    const found = await status.find("acme", "main", "purchases_1.csv\u0000x");
    assert.equal(found.ok ? 200 : found.error.returnCode, 1404);
    assert.deepEqual(await status.count("acme", "main", { filePrefix: "purchases\u0000", ...dates }), ok(0));
    assert.deepEqual(await status.search("acme", "main", { filePrefix: "purchases\u0000", ...dates }), ok([]));
    assert.deepEqual(refusing.asked, []);
    assert.deepEqual(await status.count("acme", "main", { filePrefix: "purchases", ...dates }), ok(1));
    assert.equal((await status.find("acme", "main", "purchases_1.csv")).ok, true);
  });
});
