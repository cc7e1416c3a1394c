import { describeError } from "../errors/describe-error.ts";
import {
  type FileImportError,
  fileFailureMessage,
  fileImportError,
  type ManagementError,
  managementError,
} from "../errors/index.ts";
import type { Clock } from "../ports/clock.port.ts";
import type { CsvRowSource } from "../ports/csv-rows.port.ts";
import type { DropFolderInbox } from "../ports/drop-folders.port.ts";
import type { EventLoop } from "../ports/event-loop.port.ts";
import type { CollectedEvent } from "../ports/events.store.ts";
import type { FileSourceType, FileStatusRecord } from "../ports/files.store.ts";
import type { IdSource } from "../ports/ids.port.ts";
import type { Lease, LeaseFactory } from "../ports/lease.port.ts";
import type { Logger } from "../ports/logger.port.ts";
import type { ByteSource, ReceivedFileStorage } from "../ports/received-files.port.ts";
import type { RepeatingTimer } from "../ports/repeating-timer.port.ts";
import type { Stores } from "../ports/stores.ts";
import { err, ok, type Result } from "../result.ts";
import { isStorableText } from "../values/storable-text.rules.ts";
import {
  currentState,
  type FileImportEvent,
  mayBeReceivedAgain,
  noRows,
  type RowCounts,
  startImport,
  transitionFileImport,
} from "./file-import.machine.ts";
import { checkImportFileName, prefixOfFileName } from "./file-name.rules.ts";
import { objectIdOf } from "./file-record.rules.ts";
import { checkEventDocument, findDefinition, importRow, planRows, type RowPlan } from "./file-row.rules.ts";

export interface FileImportServiceDeps {
  readonly stores: Stores;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** DEC-FIL-05: the node that receives and processes files. */
  readonly nodeId: string;
  /** DEC-FIL-02: source.host of the files this node receives. */
  readonly host: string;
  /**
   * Where every file received is kept (`files/{account}/{profile}/` in svc-hub's data directory, or its
   * PostgreSQL database).
   */
  readonly files: ReceivedFileStorage;
  /** The records of the files kept in `files`. */
  readonly rows: CsvRowSource;
  /** DEC-OPS-04: the drop folders of the profiles (`inbox/{account}/{profile}/` in svc-hub's data directory). */
  readonly dropFolders: DropFolderInbox;
  /** The imports' leases (`file-import.<id>`), in the store every node shares. */
  readonly leases: LeaseFactory;
  /** Real time that never goes back: when the lease rows were last swept. */
  readonly eventLoop: EventLoop;
  /** Renews a receipt's lease while its bytes come. */
  readonly timer: RepeatingTimer;
  /** DEC-FIL-03: the largest document one row may make (limits.maxImportRecordBytes). */
  readonly maxRecordBytes: number;
  readonly logger: Logger;
  /** Tells the background scheduler that a file waits to be processed. */
  readonly notify: () => void;
  /** Events written per commit (default 1000); the import's progress is kept after each. */
  readonly batchRows?: number;
}

/**
 * How long an import's lease lasts unless its holder renews it. The holder renews it while it receives (on a
 * timer) and at every committed batch; a holder on this machine whose process is gone loses it at once.
 */
export const importLeaseMs = 15_000;

/** The leases of imports are `file-import.<id>`, kept as the settings `lease.file-import.<id>` (LeaseFactory). */
const importLeasePrefix = "file-import.";
/**
 * Each import's progress as its last batch of events committed it (`import-progress.<id>` in the settings,
 * written in the same commit as the events): the import record's progress is written after, so a crash
 * between the two would resume before rows already stored and store them twice.
 */
const progressMarkPrefix = "import-progress.";

type ImportProgress = NonNullable<FileStatusRecord["progress"]>;

/** A progress mark as stored, or null when it is none (absent, or not of this shape). */
function progressOfMark(text: string | null): ImportProgress | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<ImportProgress> | null;
    const counts = value?.counts;
    const isCount = (count: unknown) => Number.isSafeInteger(count) && (count as number) >= 0;
    if (
      !value ||
      !isCount(value.rowsRead) ||
      !counts ||
      !isCount(counts.skipped) ||
      !isCount(counts.failed) ||
      !isCount(counts.succeeded)
    )
      return null;
    if (value.lastRowFailure !== null && typeof value.lastRowFailure !== "string") return null;
    return {
      rowsRead: value.rowsRead as number,
      counts: { skipped: counts.skipped, failed: counts.failed, succeeded: counts.succeeded },
      lastRowFailure: value.lastRowFailure ?? null,
    };
  } catch {
    return null;
  }
}

/** How often sweepLeftLeases looks (real time): rows are left only by a crash at one precise moment. */
export const leaseSweepMs = 10 * 60_000;

export type ReceiveRefusal = ManagementError | FileImportError;

/** A store write that failed while a file was processed (as opposed to the file being unreadable). */
class StoreFailure extends Error {
  override readonly name = "StoreFailure";
  constructor(override readonly cause: unknown) {
    super(describeError(cause));
  }
}

/**
 * The file import pipeline (DEC-FIL-01..05, DEC-OPS-04): receiving a file (DOWNLOADING → DOWNLOADED: the
 * bytes are streamed to the received-file storage while their size, MD5 and lines are counted),
 * and processing it (PROCESSING → PROCESSED: a streaming CSV parse whose rows become events in the event
 * store, a batch at a time; the profile worker applies them). Nothing holds a whole file in memory.
 */
export class FileImportService {
  /** Imports this process is receiving right now (their DOWNLOADING is not a crash's leftover). */
  private readonly receiving = new Set<string>();
  /** Where the received files are kept. */
  private readonly files: ReceivedFileStorage;
  /** DEC-OPS-04: the drop folders of the profiles, and what they remember of the files seen there. */
  private readonly dropFolders: DropFolderInbox;
  private readonly batchRows: number;
  /** This service's name in the imports' leases: unique, since two processes may share a configured node id. */
  private readonly holder: string;

  constructor(private readonly deps: FileImportServiceDeps) {
    this.batchRows = deps.batchRows ?? 1000;
    this.files = deps.files;
    this.dropFolders = deps.dropFolders;
    this.holder = `${deps.nodeId}#${deps.ids.randomHex(4)}`;
  }

  /**
   * The lease of one import: whoever holds it receives or processes the import. A process that stops
   * (a crash, a restart: the node id of a restarted process is new) leaves its imports to the next one that
   * can read the received file, at once on the same machine, after the lease expires elsewhere.
   */
  private leaseOf(id: string): Lease {
    return this.deps.leases(`${importLeasePrefix}${id}`, this.holder, importLeaseMs);
  }

  /** When sweepLeftLeases last looked (the event loop's monotonic time). */
  private leasesSweptAt = Number.NEGATIVE_INFINITY;

  /**
   * Removes the lease rows that no unfinished import needs: a process that stopped between taking a new
   * import's lease and creating its record (receive takes the lease first) left one behind, and nothing else
   * would ever remove it. A row is removed only through its lease, so one still held (a receipt in that very
   * window) stays. At most once per `leaseSweepMs`; answers how many went.
   */
  async sweepLeftLeases(): Promise<number> {
    const now = this.deps.eventLoop.monotonicMs();
    if (now - this.leasesSweptAt < leaseSweepMs) return 0;
    this.leasesSweptAt = now;
    const settings = this.deps.stores.settings;
    const keys = await settings.keysStartingWith(`lease.${importLeasePrefix}`);
    const unfinished = new Set((await this.deps.stores.files.unfinished()).map((record) => record.id));
    let removed = 0;
    for (const key of keys) {
      const id = key.slice(`lease.${importLeasePrefix}`.length);
      if (unfinished.has(id) || this.receiving.has(id)) continue;
      const lease = this.leaseOf(id);
      if (!(await lease.acquire())) continue;
      await lease.end();
      removed += 1;
    }
    if (removed > 0) this.deps.logger.info("import lease rows left behind removed", { removed });
    // Copies of imports that ended without a row imported, which a crash between the end and the removal left
    // (dropUnusedCopy): the personal data in them would stay where no deletion reaches it.
    for await (const { account, profile, name } of this.files.everyFile()) {
      const record = await this.deps.stores.files.find(account, profile, name);
      if (record && mayBeReceivedAgain(record)) await this.dropUnusedCopy(record);
    }
    // Progress marks of imports that finished (a crash between the end and the mark's removal left them).
    for (const key of await settings.keysStartingWith(progressMarkPrefix)) {
      if (unfinished.has(key.slice(progressMarkPrefix.length))) continue;
      await this.forgetProgressMark(key.slice(progressMarkPrefix.length));
    }
    return removed;
  }

  /** Removes an import's progress mark once the import has finished. */
  private async forgetProgressMark(id: string): Promise<void> {
    const key = `${progressMarkPrefix}${id}`;
    const mark = await this.deps.stores.settings.get(key);
    if (mark !== null) await this.deps.stores.settings.deleteIf(key, mark);
  }

  /**
   * svc-hub's own admin API (POST /admin/reset), once the store is erased and while no import runs: removes
   * every received file (`files/`, or those the database keeps, which the store's erasure took already) and
   * every file waiting in this node's drop folders (`inbox/<account>/<profile>/`, with its `rejected/` and any
   * claim), leaving the folders themselves (an operator may have mounted one). Answers how many files of each
   * went.
   */
  async eraseFiles(): Promise<{ readonly received: number; readonly dropped: number }> {
    const received = await this.files.eraseAll();
    return { received, dropped: await this.dropFolders.eraseAll() };
  }

  /** svc-hub's own admin API (POST /admin/reset): forgets the dropped files seen, whose folders were emptied. */
  forget(): void {
    this.dropFolders.forget();
  }

  /** Makes the drop folder of every profile, so an operator finds where to put files. */
  async prepareInboxes(): Promise<void> {
    for (const account of await this.deps.stores.tenancy.listAccounts()) {
      for (const profile of await this.deps.stores.tenancy.listProfiles(account.name)) {
        await this.dropFolders.prepare(account.name, profile.config.name);
      }
    }
  }

  /**
   * DEC-FIL-02, DEC-FIL-04, DEC-OPS-04: accepts a file (the admin upload's body, or a file of the drop
   * folder) and stores it. A name that cannot be a file, an unknown account or profile, and a name already
   * imported are refused before anything is kept; a source that fails while it is read leaves the import on
   * DOWNLOADING with the download failure.
   */
  async receive(
    account: string,
    profile: string,
    name: string,
    sourceType: FileSourceType,
    body: ByteSource | null,
  ): Promise<Result<FileStatusRecord, ReceiveRefusal>> {
    const checkedName = checkImportFileName(name);
    if (!checkedName.ok) return checkedName;
    const { stores } = this.deps;
    // A name no store keeps names no account (decisions of our own, "Text that a store cannot keep").
    if (!isStorableText(account) || !(await stores.tenancy.findAccount(account)))
      return err(managementError("accountNotFound"));
    const found = isStorableText(profile) ? await stores.tenancy.findProfile(account, profile) : null;
    if (!found) return err(managementError("profileNotFound"));

    const now = this.deps.clock.now();
    let record: FileStatusRecord = {
      id: objectIdOf(now, this.deps.ids.randomHex(8)),
      account,
      profile,
      name,
      prefix: prefixOfFileName(
        name,
        found.config.fileDefinitions.map((definition) => definition.prefix),
      ),
      createdAt: now,
      nodeId: this.deps.nodeId,
      file: { size: 0, checksum: this.files.checksumOfNothing, sourceType, sourceHost: this.deps.host, lineCount: 0 },
      ...startImport(now),
      progress: null,
    };
    // The import's lease is taken before its record exists: a DOWNLOADING record whose lease is free is a
    // receipt its process left, which any node's processNext fails as a download failure.
    const lease = this.leaseOf(record.id);
    if (!(await lease.acquire()))
      throw new Error(`file import ${record.id}: the lease of a new import is held elsewhere`);
    this.receiving.add(record.id);
    let created = false;
    // An upload can take longer than the lease: renewed while the bytes come, so no other node takes the
    // import for a crash's leftover.
    const stopRenewal = this.deps.timer.every(importLeaseMs / 3, () => void lease.acquire().catch(() => undefined));
    try {
      if (!(await stores.files.create(record))) {
        const previous = await stores.files.find(account, profile, name);
        if (!previous || !mayBeReceivedAgain(previous) || !(await stores.files.replace(previous, record))) {
          return err(fileImportError("alreadyImported", { file_name: name, account, profile }));
        }
        this.deps.logger.info("file received again after a failed import", {
          account,
          profile,
          file: name,
          failure: previous.status.at(-1)?.lastFailure ?? null,
        });
      }
      created = true;
      const stored = await this.files.write(account, profile, name, body);
      // DEC-FIL-05: size, MD5 and lines of the bytes received, also when the download failed part way.
      record = { ...record, file: { ...record.file, ...stored.received } };
      if (!stored.ok) {
        this.deps.logger.warn("file download failed", { account, profile, file: name, error: stored.error });
        record = await this.apply(record, {
          type: "failed",
          at: this.deps.clock.now(),
          failure: fileFailureMessage("downloadFailed"),
        });
        return ok(record);
      }
      record = await this.apply(record, { type: "downloaded", at: this.deps.clock.now() });
    } finally {
      stopRenewal();
      this.receiving.delete(record.id);
      // A failed download (or a refused name) ends the import, and its lease row goes; a received file's
      // lease is given up for the processing to take, as is that of a receipt stopped by an error, for
      // another node to finish.
      await (record.finished || !created ? lease.end() : lease.release()).catch(() => undefined);
    }
    this.deps.logger.info("file received", {
      account,
      profile,
      file: name,
      source: sourceType,
      size: record.file.size,
      lines: record.file.lineCount,
    });
    this.deps.notify();
    return ok(record);
  }

  /**
   * An import that ended with no row made into an event (an unknown prefix, a header that did not match,
   * every row failed) keeps no copy of the file: nothing of it is in the store to explain, the name may be
   * received again, and the personal data in it would otherwise stay where no deletion can reach it (the
   * privacy API erases rows of files read through their definition).
   */
  private async dropUnusedCopy(record: FileStatusRecord): Promise<void> {
    if (!mayBeReceivedAgain(record)) return;
    await this.files.remove(record.account, record.profile, record.name).catch((error) =>
      this.deps.logger.warn("the copy of a file that imported nothing could not be removed", {
        account: record.account,
        profile: record.profile,
        file: record.name,
        error: describeError(error),
      }),
    );
  }

  /** Records the next state of an import (FIL-07, DEC-FIL-03). */
  private async apply(record: FileStatusRecord, event: FileImportEvent): Promise<FileStatusRecord> {
    const moved = transitionFileImport(record, event);
    if (!moved.ok) throw new Error(`file import ${record.id}: ${moved.error}`);
    const next = { ...record, ...moved.value.next };
    await this.deps.stores.files.update(next);
    return next;
  }

  /**
   * DEC-OPS-04: takes the files of the drop folders (`inbox/{account}/{profile}/`; names starting with a
   * period are left alone, so a file is written under such a name and renamed when complete). A file taken
   * is received like an upload and removed from the inbox once it is stored; one refused (unknown profile, a
   * bad or used name, a name that is not `<prefix>_….csv`) or that could not be stored is moved to
   * `rejected/` beside it, under a name of its own there, so the operator's file is never lost. Answers how
   * many files it took.
   */
  pickUpDropped(): Promise<number> {
    return this.dropFolders.pickUp(async (account, profile, name, bytes) => {
      const received = await this.receive(account, profile, name, "file", bytes);
      if (received.ok && currentState(received.value) !== "DOWNLOADING") return { stored: true };
      return { stored: false, reason: received.ok ? "it could not be stored" : received.error.message };
    });
  }

  /**
   * DEC-OPS-04: when the import work left falls due, on the virtual clock: an unfinished import, whichever
   * node holds it, since its last state (a wait on this node waits for the node importing it); a dropped file
   * not yet settled, when it will be. Null when there is none.
   */
  async nextDueAt(): Promise<number | null> {
    let next: number | null = null;
    const consider = (at: number) => {
      next = next === null ? at : Math.min(next, at);
    };
    for (const record of await this.deps.stores.files.unfinished())
      consider(record.status.at(-1)?.at ?? record.createdAt);
    const untilSettled = this.dropFolders.untilSettled();
    if (untilSettled !== null) consider(this.deps.clock.now() + untilSettled);
    return next;
  }

  /**
   * Processes the oldest unfinished import whose lease it can take: a received file is read and imported;
   * one left in DOWNLOADING by a process that stopped failed to download; one left in PROCESSING resumes after
   * its last committed batch. A node takes over another's import when the received files are shared by every
   * node (kept in the database), when it holds the received file, or when the file was received on its
   * machine (then a file that is gone fails the import, as it would for the node that received it); it
   * records itself as the import's node. Answers the rows read (plus one), or 0 when nothing was left.
   */
  async processNext(): Promise<number> {
    for (const found of await this.deps.stores.files.unfinished()) {
      if (this.receiving.has(found.id)) continue;
      const downloading = currentState(found) === "DOWNLOADING";
      const receivedHere = found.nodeId === this.deps.nodeId || found.file.sourceHost === this.deps.host;
      const readable =
        downloading ||
        receivedHere ||
        this.files.sharedByNodes ||
        (await this.files.holds(found.account, found.profile, found.name));
      if (!readable) continue;
      const lease = this.leaseOf(found.id);
      if (!(await lease.acquire())) continue;
      let finished = false;
      try {
        // The list may be stale: another node may have finished the import (and ended its lease) since. Its
        // record as the store holds it now decides, so rows are never read twice from old counts.
        const current = await this.deps.stores.files.find(found.account, found.profile, found.name);
        if (!current || current.id !== found.id || current.finished) {
          finished = true;
          continue;
        }
        let record = current;
        if (record.nodeId !== this.deps.nodeId) {
          this.deps.logger.info("file import taken over", {
            account: record.account,
            profile: record.profile,
            file: record.name,
            from: record.nodeId,
            state: currentState(record),
          });
          record = { ...record, nodeId: this.deps.nodeId };
          await this.deps.stores.files.update(record);
        }
        if (currentState(record) === "DOWNLOADING") {
          // What its receiver had written: the receiver is gone, since the lease was free.
          await this.files.removePartial(record.account, record.profile, record.name);
          finished = (
            await this.apply(record, {
              type: "failed",
              at: this.deps.clock.now(),
              failure: fileFailureMessage("downloadFailed"),
            })
          ).finished;
          return 1;
        }
        const rowsRead = await this.process(record, lease);
        finished = true;
        return 1 + rowsRead;
      } finally {
        // A finished import needs its lease no more, and its row goes (else one stays per import). One stopped
        // early (a store failure, the lease lost, the store closed at shutdown) gives its lease up instead, so
        // another node goes on with it at once.
        await (finished ? lease.end() : lease.release()).catch(() => undefined);
        if (finished) await this.forgetProgressMark(found.id).catch(() => undefined);
      }
    }
    return 0;
  }

  /**
   * Reads the rows of a received import into events, a batch a commit. Answers the rows read once the import
   * has finished (PROCESSED, or a file-level failure recorded); one that cannot go on (a store write failed,
   * the lease was lost) throws and stays PROCESSING, to resume after its last committed batch.
   */
  private async process(received: FileStatusRecord, lease: { acquire(): Promise<boolean> }): Promise<number> {
    let record =
      currentState(received) === "DOWNLOADED"
        ? await this.apply(received, { type: "processing-started", at: this.deps.clock.now() })
        : received;
    const { account, profile, name } = record;
    const fail = async (failure: string, counts?: RowCounts) => {
      try {
        record = await this.apply(record, {
          type: "failed",
          at: this.deps.clock.now(),
          failure,
          ...(counts ? { counts } : {}),
        });
      } catch (error) {
        throw new StoreFailure(error);
      }
      this.deps.logger.info("file import failed", { account, profile, file: name, failure });
      await this.dropUnusedCopy(record);
    };

    const config = (await this.deps.stores.tenancy.findProfile(account, profile))?.config ?? null;
    const definition = findDefinition(config, record.prefix);
    if (!definition.ok) {
      await fail(definition.error).catch(rethrowCause);
      return 0;
    }
    const visitorIdParameter =
      config?.visitorIdAttributes.find((attribute) => attribute.id === definition.value.visitorId.attribute)
        ?.parameter ?? null;

    // The last batch's own mark wins over a progress the record did not get to (a crash between the two).
    const progressKey = `${progressMarkPrefix}${record.id}`;
    const marked = progressOfMark(await this.deps.stores.settings.get(progressKey));
    if (marked && marked.rowsRead > (record.progress?.rowsRead ?? 0)) {
      this.deps.logger.info("file import resumes after its last stored batch", {
        account,
        profile,
        file: name,
        rowsRead: marked.rowsRead,
      });
      record = { ...record, progress: marked };
      await this.deps.stores.files.update(record);
    }
    const resumeAfter = record.progress?.rowsRead ?? 0;
    let counts: RowCounts = record.progress?.counts ?? noRows;
    let lastRowFailure = record.progress?.lastRowFailure ?? null;
    let rowsRead = 0;
    let plan: RowPlan | null = null;
    let batch: CollectedEvent[] = [];
    let at = this.deps.clock.now();

    const flush = async () => {
      try {
        // Renewed at every batch; lost only when this process stalled past the lease and another took over.
        if (!(await lease.acquire())) throw new Error(`file import ${record.id}: another node took the import over`);
        const progress = { rowsRead, counts, lastRowFailure };
        if (batch.length > 0)
          await this.deps.stores.events.append(batch, { mark: { key: progressKey, value: JSON.stringify(progress) } });
        batch = [];
        at = this.deps.clock.now();
        record = { ...record, progress };
        await this.deps.stores.files.update(record);
      } catch (error) {
        // Not the file's fault: the import stays PROCESSING and resumes after its last committed batch.
        throw new StoreFailure(error);
      }
    };

    const rows = this.deps.rows.rowsOf({ account, profile, name }, this.deps.maxRecordBytes);
    try {
      for await (const { fields, line } of rows) {
        if (plan === null) {
          const planned = planRows(definition.value, fields);
          if (!planned.ok) {
            await fail(planned.error);
            return rowsRead;
          }
          plan = planned.value;
          continue;
        }
        rowsRead += 1;
        if (rowsRead <= resumeAfter) continue;
        const outcome = importRow(
          plan,
          { account, profile, fileName: name, definition: definition.value, visitorIdParameter, at },
          fields,
          line,
        );
        if (outcome.kind === "skipped") {
          counts = { ...counts, skipped: counts.skipped + 1 };
        } else if (outcome.kind === "failed") {
          counts = { ...counts, failed: counts.failed + 1 };
          lastRowFailure = outcome.failure;
        } else {
          const size = checkEventDocument(outcome.event, this.deps.maxRecordBytes);
          if (!size.ok) {
            rowsRead -= 1;
            await flush();
            await fail(size.error, counts);
            return rowsRead;
          }
          batch.push(outcome.event);
          counts = { ...counts, succeeded: counts.succeeded + 1 };
        }
        if (rowsRead - resumeAfter > 0 && (rowsRead - resumeAfter) % this.batchRows === 0) await flush();
      }
    } catch (error) {
      if (error instanceof StoreFailure) throw error.cause;
      // The rows read before the failure stay imported; the counters say how many.
      await flush().catch(rethrowCause);
      const reading = this.deps.rows.failureOf(error);
      const failure =
        reading === "recordTooLarge"
          ? fileFailureMessage("recordTooLarge", { size: this.deps.maxRecordBytes + 1, max: this.deps.maxRecordBytes })
          : fileFailureMessage("processingException");
      if (reading === "other")
        this.deps.logger.error("file processing failed", { account, profile, file: name, error: describeError(error) });
      await fail(failure, plan === null ? undefined : counts).catch(rethrowCause);
      return rowsRead;
    }
    if (plan === null) {
      // An empty file has no header, so no visitor ID column either.
      const planned = planRows(definition.value, []);
      await fail(planned.ok ? fileFailureMessage("processingException") : planned.error).catch(rethrowCause);
      return 0;
    }
    await flush().catch(rethrowCause);
    record = await this.apply(record, { type: "processed", at: this.deps.clock.now(), counts, lastRowFailure });
    await this.dropUnusedCopy(record);
    this.deps.logger.info("file imported", { account, profile, file: name, ...counts });
    return rowsRead;
  }
}

function rethrowCause(error: unknown): never {
  throw error instanceof StoreFailure ? error.cause : error;
}
