import { describeError } from "../errors/describe-error.ts";
import type { EventLoop } from "../ports/event-loop.port.ts";
import type { IdSource } from "../ports/ids.port.ts";
import type { Logger } from "../ports/logger.port.ts";
import type { RequestAdmission } from "../ports/request-admission.port.ts";
import type { ErasedRecords, Stores } from "../ports/stores.ts";

/** What the configuration put back in the store (POST /admin/reset's answer). */
export interface ConfigurationApplied {
  readonly accounts: number;
  readonly profiles: number;
  readonly users: number;
  readonly apiKeys: number;
  readonly revisions: number;
}

/** POST /admin/reset's answer: what was erased, and what the configuration put back. */
export interface ResetReport {
  readonly erased: Omit<ErasedRecords, "settings"> & {
    /** Files received for import: the store's (`Stores.receivedFiles`), or under the data directory's `files/`. */
    readonly receivedFiles: number;
    /** Files waiting in the drop folders (`inbox/<account>/<profile>/`, their `rejected/` included). */
    readonly droppedFiles: number;
  };
  readonly configuration: ConfigurationApplied;
}

export interface ResetServiceDeps {
  readonly stores: Stores;
  /** The requests being answered: held while the reset runs, refused while a failed one left the store erased. */
  readonly requests: RequestAdmission;
  /** Holds every background worker of the process (here and in the background thread); the answer lets them run again. */
  readonly holdWorkers: () => Promise<() => Promise<void>>;
  /** Resolves once every collected event handed to the group commit is committed (or refused). */
  readonly eventsSettled: () => Promise<void>;
  /** Forgets what this process keeps in memory of the store: the token signing key, rate windows, tenants, the clock's offset. */
  readonly forgetInMemory: () => Promise<void>;
  /** Removes the files received for import and those waiting in the drop folders. */
  readonly eraseFiles: () => Promise<{ readonly received: number; readonly dropped: number }>;
  /** Applies the configuration to the store as a start does (it throws what it cannot apply). */
  readonly applyConfiguration: () => Promise<ConfigurationApplied>;
  readonly ids: IdSource;
  readonly logger: Logger;
  /** How long the reset took, for its log line (monotonic time, not the virtual clock). */
  readonly eventLoop: EventLoop;
  /** How long a reset waits for the requests in flight before it answers busy (default inFlightWaitMs). */
  readonly inFlightWaitMs?: number;
}

/**
 * What survives a reset in the settings: the admin token (the caller keeps going with it), the key the privacy
 * audit's value hashes are made with (a key of the installation, as the token is: every process keeps it in
 * memory, and PRV-06 compares hashes made with it), and the profiles lease, which names a running process
 * (erased, a second process could take it while the holder still applies events).
 */
export const settingsKeptByReset = ["admin.token", "privacy.valueHashKey", "lease.profiles"] as const;

/** The stores' counts in the order the answer gives them, whichever store made them (it reads the same on each). */
const reportOrder = [
  "accounts",
  "profiles",
  "users",
  "apiKeys",
  "sessions",
  "lockouts",
  "events",
  "visitorProfiles",
  "dataLayers",
  "revisions",
  "privacyTransactions",
  "fileImports",
] as const satisfies ReadonlyArray<keyof ErasedRecords>;

function inReportOrder(records: ErasedRecords): Omit<ErasedRecords, "settings"> {
  return Object.fromEntries(reportOrder.map((name) => [name, records[name]])) as Omit<ErasedRecords, "settings">;
}

/** Changes at every reset, so the other processes on the store learn of it (ResetService.follow). */
const resetEpochKey = "reset.epoch";

/**
 * The longest a reset waits for the requests in flight to be answered: a login waits up to 10 s for the
 * attempts beside it, a data layer change retries for up to 10 s.
 */
export const inFlightWaitMs = 15_000;

/**
 * svc-hub's own admin API: POST /admin/reset, the isolation of test cases without a restart. Afterwards the
 * service answers as a fresh start with the same configuration on an empty store would, with the same admin
 * token, port and process. In order: no new request starts and those in flight are answered
 * (RequestAdmission), the events they handed in are committed, the background workers finish their pass and
 * are held, the store is erased in one transaction (Stores.eraseAll), the import files removed, what this
 * process keeps in memory forgotten, the configuration applied again; then the workers and the requests go on.
 */
export class ResetService {
  private resetting = false;
  /** The reset epoch last seen in the store (undefined: not read yet). */
  private knownEpoch: string | null | undefined = undefined;

  constructor(private readonly deps: ResetServiceDeps) {}

  async reset(): Promise<ResetReport> {
    return this.deps.requests.alone(this.deps.inFlightWaitMs ?? inFlightWaitMs, async () => {
      const started = this.deps.eventLoop.monotonicMs();
      this.resetting = true;
      try {
        await this.deps.eventsSettled();
        const release = await this.deps.holdWorkers();
        try {
          return await this.eraseAndApply(started);
        } finally {
          await release();
        }
      } finally {
        this.resetting = false;
      }
    });
  }

  /**
   * Called a few times a second: when another process sharing the store reset it, this one forgets what it
   * keeps in memory of it too (its rate windows, its copy of the tenants, the token signing key). Its work in
   * flight at that moment (events being committed, a profile batch) is not stopped.
   */
  async follow(): Promise<void> {
    if (this.resetting) return;
    const epoch = await this.deps.stores.settings.get(resetEpochKey);
    if (this.resetting || epoch === this.knownEpoch) return;
    const first = this.knownEpoch === undefined;
    this.knownEpoch = epoch;
    if (!first) await this.deps.forgetInMemory();
  }

  private async eraseAndApply(started: number): Promise<ResetReport> {
    const { stores, requests, logger, eventLoop } = this.deps;
    let erasedRecords: ErasedRecords;
    try {
      erasedRecords = await stores.eraseAll({ keepSettings: settingsKeptByReset });
    } catch (error) {
      // Nothing was erased (one transaction): the service goes on as it was.
      logger.error("reset failed, nothing was erased", { error: describeError(error) });
      throw error;
    }
    try {
      this.knownEpoch = this.deps.ids.randomHex(16);
      await stores.settings.set(resetEpochKey, this.knownEpoch);
      const files = await this.deps.eraseFiles();
      await this.deps.forgetInMemory();
      const configuration = await this.deps.applyConfiguration();
      // The erasure's pages also leave the WAL, as after a privacy deletion (DEC-PRV-04).
      await stores.privacy.flushErasures().catch(() => false);
      requests.refuseAll(false);
      const report: ResetReport = {
        erased: {
          ...inReportOrder(erasedRecords),
          // A store that keeps them erased them with the rest; the host's are removed by eraseFiles.
          receivedFiles: (erasedRecords.receivedFiles ?? 0) + files.received,
          droppedFiles: files.dropped,
        },
        configuration,
      };
      logger.info("service reset", { ...report, ms: Math.round(eventLoop.monotonicMs() - started) });
      return report;
    } catch (error) {
      // Erased but not set up again: no request may see that. Until a reset succeeds, each is answered 503.
      requests.refuseAll(true);
      logger.error("reset failed after the store was erased; every request is answered 503 until a reset succeeds", {
        error: describeError(error),
      });
      throw error;
    }
  }
}
