import { hostname } from "node:os";
import type { ServiceConfig } from "../../core/config/index.ts";
import { dataLayerPublisher } from "../../core/datalayer/index.ts";
import { FileImportService, fileImportWorker } from "../../core/files/index.ts";
import type { Logger, Stores } from "../../core/ports/index.ts";
import { eraseVisitor, visitorDeletionWorker } from "../../core/privacy/index.ts";
import {
  eventRetentionWorker,
  ProfilesService,
  profilePolicyFromLimits,
  profileWorker,
} from "../../core/profiles/index.ts";
import { sessionJanitor, sessionPolicyFromLimits } from "../../core/session/index.ts";
import { ReceivedCsvRows } from "../fs/csv-rows.ts";
import { DropFolders } from "../fs/drop-folder.ts";
import { importedFilesEraser } from "../fs/imported-files.eraser.ts";
import { ReceivedFiles } from "../fs/received-files.ts";
import { cryptoIds } from "../runtime/crypto.ts";
import { hostEventLoop } from "../runtime/event-loop.ts";
import { createLease } from "../runtime/lease.ts";
import { hostRepeatingTimer } from "../runtime/repeating-timer.ts";
import { Scheduler } from "../runtime/scheduler.ts";
import type { VirtualClock } from "../runtime/virtual-clock.ts";

export interface BackgroundDeps {
  readonly stores: Stores;
  readonly clock: VirtualClock;
  readonly config: ServiceConfig;
  readonly logger: Logger;
  readonly nodeId: string;
  readonly dataDir: string;
  readonly pollMs?: number;
  /** Whom an accepted upload tells (default: this scheduler; with the background thread, the thread, which imports). */
  readonly notifyImports?: () => void;
}

/**
 * Which workers a scheduler runs: all of them, or one of two parts. `events`: the work on collected and
 * imported events (file import, profiles, visitor deletions, retention), which commits often and runs in the
 * background thread beside the appends of collected events; `light`: session expiry and data layer
 * publishing, which stay beside the HTTP calls whose writes they follow, so the two connections do not
 * queue for the write lock at every data layer call.
 */
export type BackgroundPart = "all" | "events" | "light";

export interface Background {
  readonly scheduler: Scheduler;
  readonly fileImports: FileImportService;
  /** Starts the workers. */
  start(): void;
  /** Stops the workers and gives the profiles lease up; the store stays open. */
  stop(): Promise<void>;
  /**
   * svc-hub's own admin API (POST /admin/reset): waits for the pass in progress and keeps the workers from
   * running until `release`, which also has them forget what they kept in memory of the store and the folders.
   */
  hold(): Promise<() => void>;
}

/** Background.hold: the scheduler's, and what the import service keeps of the drop folders forgotten at release. */
async function holdWorkers(scheduler: Scheduler, fileImports: FileImportService): Promise<() => void> {
  const release = await scheduler.hold();
  return () => {
    fileImports.forget();
    release();
  };
}

/**
 * The shortest time between two passes of the background thread's scheduler (its coalescing delay; 20 ms
 * elsewhere). Under steady collection every group commit notifies it, and each pass has costs of its own
 * whatever it finds: the profiles lease and cursor, the look at the drop folders and the deletion requests,
 * a profile batch's reads and its commit. With 50 ms a pass under load applies about 350 events instead of
 * about 190, and the thread spends about 12% less CPU an event at a fixed rate (bench/FINDINGS.md, fifth
 * round). A profile is then up to 30 ms later to follow its events; `/admin/wait` still drains at once.
 */
const eventsPassGapMs = 50;

const dayMs = 86_400_000;

/**
 * Every asynchronous state of the service, processed by one scheduler: session expiry, data layer
 * publishing, file imports, visitor profiles, visitor deletions and event retention. The service runs it in its own
 * thread (adapters/threads/background-host.ts) or, for the in-memory store and in tests, on the
 * thread of the HTTP app; the wiring is the same.
 */
export async function openBackground(deps: BackgroundDeps, part: BackgroundPart = "all"): Promise<Background> {
  const { stores, clock, config, logger } = deps;
  const scheduler = new Scheduler({
    clock,
    logger,
    pollMs: deps.pollMs,
    ...(part === "events" ? { coalesceMs: eventsPassGapMs } : {}),
  });
  clock.onChange(() => scheduler.notify());
  if (part !== "events") {
    scheduler.register(
      sessionJanitor({
        sessions: stores.sessions,
        lockouts: stores.lockouts,
        clock,
        policy: sessionPolicyFromLimits(config.limits),
      }),
    );
    scheduler.register(dataLayerPublisher({ store: stores.dataLayers, logger }));
  }
  // The file import use-cases of this node: the admin upload (on the HTTP side) and the import itself, on the
  // files received (the store's when it keeps them, so every node reads them; else the data directory's
  // `files/`) and on the drop folders of the data directory (`inbox/`).
  const receivedFiles = stores.receivedFiles ?? new ReceivedFiles(deps.dataDir);
  const fileImports = new FileImportService({
    stores,
    clock,
    ids: cryptoIds,
    nodeId: deps.nodeId,
    host: hostname(),
    files: receivedFiles,
    rows: new ReceivedCsvRows(receivedFiles),
    dropFolders: new DropFolders({ dataDir: deps.dataDir, files: stores.files, logger }),
    leases: (name, holder, ttlMs) => createLease(stores.settings, name, holder, ttlMs),
    eventLoop: hostEventLoop,
    timer: hostRepeatingTimer,
    maxRecordBytes: config.limits.maxImportRecordBytes,
    logger,
    notify: deps.notifyImports ?? (() => scheduler.notify()),
  });
  await fileImports.prepareInboxes();
  if (part === "light")
    return {
      scheduler,
      fileImports,
      start: () => scheduler.start(),
      stop: () => scheduler.stop(),
      hold: () => holdWorkers(scheduler, fileImports),
    };
  // DEC-FIL-01..05: registered before the profile worker, so one pass imports rows and applies them.
  scheduler.register(fileImportWorker({ imports: fileImports }));
  const profiles = new ProfilesService({
    stores,
    policy: profilePolicyFromLimits(config.limits),
    eventLoop: hostEventLoop,
  });
  const profilesLeaseHolder = `${deps.nodeId}-${cryptoIds.randomHex(4)}`;
  const profilesLeaseOf = () => createLease(stores.settings, "profiles", profilesLeaseHolder, 15_000);
  const profilesWorker = profileWorker({ stores, profiles, logger, lease: profilesLeaseOf() });
  scheduler.register(profilesWorker);
  // PRV-09, DEC-PRV-04: after the import and profile workers, and catching both up first, so every stored row
  // is an event and stitching is complete when a visitor is erased (with the kept copies of imported files).
  // Only the holder of the profiles lease erases, so no profile update of another node interleaves with it.
  const importsCatchUp = fileImportWorker({ imports: fileImports });
  const profilesLease = profilesLeaseOf();
  const importedFiles = importedFilesEraser({ stores, files: receivedFiles, logger });
  scheduler.register(
    visitorDeletionWorker({
      store: stores.privacy,
      mayRun: () => profilesLease.acquire(),
      erase: (transaction) => eraseVisitor({ stores, importedFiles }, transaction),
      beforeErasing: async (now) => {
        while ((await importsCatchUp.runDue(now)) > 0);
        while ((await profilesWorker.runDue(now)) > 0);
      },
      logger,
    }),
  );
  // After the profile worker, whose cursor it reads: one pass applies events and then expires the applied.
  scheduler.register(
    eventRetentionWorker({
      events: stores.events,
      settings: stores.settings,
      retentionMs: config.limits.eventRetentionDays * dayMs,
    }),
  );
  return {
    scheduler,
    fileImports,
    start() {
      scheduler.start();
    },
    async stop() {
      await scheduler.stop();
      await profilesLease.release().catch(() => undefined);
    },
    hold: () => holdWorkers(scheduler, fileImports),
  };
}
