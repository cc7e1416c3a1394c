import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CollectService, combineCollectStats, type NodeCollectStats } from "../../core/collect/index.ts";
import type { ConfigError, ServiceConfig } from "../../core/config/index.ts";
import { type ApplyConfigReport, applyConfig, applyConfiguredRevisions } from "../../core/config/index.ts";
import { DataLayerService } from "../../core/datalayer/index.ts";
import { describeError } from "../../core/errors/index.ts";
import type { FileImportService } from "../../core/files/index.ts";
import { FileStatusService } from "../../core/files/index.ts";
import { InspectService } from "../../core/inspect/index.ts";
import { MomentsService } from "../../core/moments/index.ts";
import { OverviewService } from "../../core/overview/index.ts";
import type { Logger, SecretHasher, Stores, WorkScheduler } from "../../core/ports/index.ts";
import {
  journalEntryHoldsErasedValue,
  journaledRequestHoldsErasedValue,
  PrivacyService,
} from "../../core/privacy/index.ts";
import { profilePolicyFromLimits, syncEngineStates } from "../../core/profiles/index.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { RevisionsService } from "../../core/revisions/index.ts";
import { ClusterSync, type ConfigurationApplied, ResetService } from "../../core/service/index.ts";
import { AuthService, preparingSecrets, UsersService } from "../../core/session/index.ts";
import { FaultPlan, RequestJournal } from "../../core/testing-tools/index.ts";
import { type TimingPresetName, timingPresets } from "../../core/timing/index.ts";
import { withJudgedEvents } from "../../core/tracking-plan/index.ts";
import packageJson from "../../package.json" with { type: "json" };
import { isbotFilter } from "../collect/bot-filter.ts";
import { configSourceOf } from "../config/config.loader.ts";
import { loadPlanCompiler, trackingPlansOf } from "../config/tracking-plans.ts";
import { watchDropFolders } from "../fs/drop-folder.ts";
import { type App, createApp } from "../http/app.ts";
import type { AppDeps } from "../http/app-deps.ts";
import { EventStreams } from "../http/event-stream.ts";
import {
  type Argon2HasherOptions,
  createArgon2Hasher,
  cryptoIds,
  nodeDigests,
  rememberingVerified,
} from "../runtime/crypto.ts";
import { deterministicZipper } from "../runtime/deterministic-zip.ts";
import { eventLineOf } from "../runtime/event-lines.ts";
import { hostEventLoop } from "../runtime/event-loop.ts";
import { joseTokenSigner } from "../runtime/jose-tokens.ts";
import { RequestGate } from "../runtime/request-gate.ts";
import { ServiceMetrics } from "../runtime/service-metrics.ts";
import { openVirtualClock, type VirtualClock } from "../runtime/virtual-clock.ts";
import { openLibsqlStores } from "../store-libsql/libsql.stores.ts";
import {
  type SpawnedBackgroundThread,
  spawnBackgroundThread,
  startBackgroundThread,
} from "../threads/background-host.ts";
import { type BackgroundThreadOnDemand, backgroundThreadOnDemand } from "../threads/background-on-demand.ts";
import { keepAdminToken, readKeptAdminToken } from "./admin-token.ts";
import { type Background, type BackgroundDeps, openBackground } from "./background.ts";

export type StoreChoice =
  | { readonly kind: "memory" }
  | { readonly kind: "libsql"; readonly url: string }
  | { readonly kind: "postgres"; readonly url: string };

export interface ServiceOptions {
  readonly store: StoreChoice;
  readonly config: ServiceConfig;
  readonly logger: Logger;
  /** For `env` secrets of the configuration. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The admin bearer token; absent: the one kept in the store, or a new one made and kept. */
  readonly adminToken?: string;
  /** Overrides the configuration's timing preset. */
  readonly timing?: TimingPresetName;
  readonly hasher?: SecretHasher;
  /** How often the scheduler looks for work written by other nodes. */
  readonly pollMs?: number;
  /**
   * SVC_DATA_DIR: holds the file import drop folders (`inbox/`) and the files received (`files/`, unless the
   * store keeps them: PostgreSQL), beside the libSQL database. Absent: a temporary folder, removed by close()
   * (tests, throw-away runs).
   */
  readonly dataDir?: string;
  /**
   * libSQL only: run the background work (and the appends of collected events) in a thread of its own,
   * with its own connection, so the HTTP thread never waits on their commits; and the moments lookups' reads
   * in another (adapters/threads/lookup-host.ts). main.ts sets it; tests that drive the workers
   * themselves leave it off.
   */
  readonly backgroundThread?: boolean;
  /**
   * The real time the virtual clock runs on (Date.now); a test stands it still to make things happen in one
   * millisecond. The background thread, where it runs, keeps the real one.
   */
  readonly realNow?: () => number;
  /** Called if the background thread stops without being asked to (main.ts stops the process). */
  readonly onBackgroundFailure?: (error: Error) => void;
  /**
   * SVC_PRINT_EVENTS: where each outcome of the collection endpoint is written, as one line of JSON
   * (eventLineOf); main.ts gives the log's writer, so the two never interleave mid-line. None: not printed.
   */
  readonly printEvents?: (line: string) => void;
  /**
   * SVC_REQUEST_JOURNAL_BYTES: how many bytes the request journal (GET /admin/requests) may hold; 0 turns it
   * off. Absent: defaultRequestJournalBytes.
   */
  readonly requestJournalBytes?: number;
}

export interface Service {
  readonly app: App;
  readonly deps: AppDeps;
  /** The stores, as the use cases reach them (events through the background thread where it commits them). */
  readonly stores: Stores;
  readonly seed: ApplyConfigReport;
  /** Whether the admin token was made by this start: the one start whose banner prints it whole. */
  readonly adminTokenGenerated: boolean;
  /** The background work when it runs on this thread; null when it runs in a thread of its own. */
  readonly background: Background | null;
  /** Starts the background workers. */
  start(): void;
  /** Ends every live feed (GET /admin/events/live), and those opened later at once: before the server stops. */
  endStreams(): void;
  /** Ends the live feeds, stops the workers and closes the store. */
  close(): Promise<void>;
}

/** How often a process looks at what other processes on the store changed: the virtual clock, a reset. */
const sharedStateRefreshMs = 250;

/** The background work as the HTTP side sees it, on this thread or in its own. */
interface Work {
  readonly stores: Stores;
  readonly scheduler: WorkScheduler;
  /**
   * How many groups of collected events may be committing at once (CollectService's commitsInFlight): 2 where
   * the background thread commits them (it then goes from one group to the next without waiting for this
   * thread to send it), 1 on this thread.
   */
  readonly eventCommitsInFlight: number;
  readonly fileImports: FileImportService;
  readonly background: Background | null;
  start(): void;
  stop(): Promise<void>;
  /** Every background worker held, here and in the background thread (Background.hold); the answer releases them. */
  hold(): Promise<() => Promise<void>>;
}

/** The schedulers of the HTTP thread and of the background thread, as one: notified together, drained together. */
function bothSchedulers(local: WorkScheduler, thread: WorkScheduler): WorkScheduler {
  return {
    notify() {
      local.notify();
      thread.notify();
    },
    // The local workers take no events.
    eventsCommitted() {
      thread.eventsCommitted();
    },
    async drain(options = {}) {
      const reports = await Promise.all([local.drain(options), thread.drain(options)]);
      const processed: Record<string, number> = {};
      for (const report of reports)
        for (const [name, count] of Object.entries(report.processed)) processed[name] = (processed[name] ?? 0) + count;
      const due = reports.map((report) => report.nextDueAt).filter((at): at is number => at !== null);
      return {
        complete: reports.every((report) => report.complete),
        timedOut: reports.some((report) => report.timedOut),
        processed,
        nextDueAt: due.length > 0 ? Math.min(...due) : null,
      };
    },
    async backlog() {
      const [here, there] = await Promise.all([local.backlog(), thread.backlog()]);
      return [...here, ...there];
    },
  };
}

/**
 * The background thread where the service has one (libSQL, `backgroundThread`): spawned now, to load while the store
 * is opened, when the store already holds data (its work may be waiting: events to apply or expire, imports,
 * deletions); for a database that does not exist yet, started by its first work (background-on-demand.ts).
 */
function spawnWorkThread(
  options: ServiceOptions,
  nodeId: string,
  dataDir: string,
): { readonly spawned: SpawnedBackgroundThread } | { readonly onDemand: BackgroundThreadOnDemand } | null {
  if (options.store.kind !== "libsql" || !options.backgroundThread) return null;
  const init = {
    url: options.store.url,
    config: options.config,
    nodeId,
    dataDir,
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
  };
  const databaseFile = databaseFileOf(options.store.url);
  if (databaseFile !== null && !existsSync(databaseFile)) {
    const { logger, onBackgroundFailure } = options;
    return {
      onDemand: backgroundThreadOnDemand(() => {
        logger.debug("starting the background thread");
        return startBackgroundThread(init, logger, onBackgroundFailure);
      }, onBackgroundFailure),
    };
  }
  return { spawned: spawnBackgroundThread(init, options.logger, options.onBackgroundFailure) };
}

/** The file of a `file:` libSQL URL; null for another (`:memory:`). */
function databaseFileOf(url: string): string | null {
  if (!url.startsWith("file:") || url.startsWith("file::memory:")) return null;
  return decodeURIComponent(url.slice("file:".length).split("?")[0] ?? "");
}

async function openWork(spawned: ReturnType<typeof spawnWorkThread>, deps: BackgroundDeps): Promise<Work> {
  if (spawned) {
    const thread = "onDemand" in spawned ? spawned.onDemand : await spawned.spawned.open();
    const events = deps.stores.events;
    // Collected events are appended through the thread's connection; reads stay on this one.
    const stores: Stores = {
      ...deps.stores,
      // Ready only while both connections answer: events cannot be committed without the thread.
      ping: async () => {
        await deps.stores.ping();
        thread.assertRunning();
      },
      events: {
        // Only collection appends here; imports (whose appends mark their progress) run in the thread.
        append: (batch, options) =>
          options?.mark
            ? Promise.reject(new Error("an append with a mark runs in the background thread"))
            : thread.append(batch),
        query: (query) => events.query(query),
        // The profile worker builds it, in the thread; this is the same store all the same.
        indexVisitors: (upToSeq) => events.indexVisitors(upToSeq),
        countVerdicts: (query) => events.countVerdicts(query),
        deleteVisitors: (account, profile, ids) => events.deleteVisitors(account, profile, ids),
        eraseValue: (account, profile, erased) => events.eraseValue(account, profile, erased),
        // Retention runs in the thread (the events part of the background); this is the same store all the same.
        deleteReceivedBefore: (before, options) => events.deleteReceivedBefore(before, options),
      },
    };
    // Uploads are accepted here and imported in the thread.
    const light = await openBackground({ ...deps, stores, notifyImports: () => thread.notify() }, "light");
    const scheduler = bothSchedulers(light.scheduler, thread);
    // A thread on demand is started by a file dropped in a folder, looked for at the light scheduler's pace.
    const onDemand = "onDemand" in spawned ? spawned.onDemand : null;
    let stopWatching = () => {};
    const stop = async () => {
      stopWatching();
      await light.stop();
      await thread.close();
    };
    const hold = async () => {
      const releaseLight = await light.hold();
      try {
        await thread.pause();
      } catch (error) {
        releaseLight();
        throw error;
      }
      return async () => {
        try {
          await thread.resume();
        } finally {
          releaseLight();
        }
      };
    };
    return {
      stores,
      scheduler,
      eventCommitsInFlight: 2,
      fileImports: light.fileImports,
      background: null,
      start() {
        light.start();
        if (onDemand) stopWatching = watchDropFolders(deps.dataDir, deps.pollMs ?? 1000, () => onDemand.start());
      },
      stop,
      hold,
    };
  }
  const background = await openBackground(deps);
  const hold = async () => {
    const release = await background.hold();
    return async () => release();
  };
  return {
    stores: deps.stores,
    scheduler: background.scheduler,
    eventCommitsInFlight: 1,
    fileImports: background.fileImports,
    background,
    start: () => background.start(),
    stop: () => background.stop(),
    hold,
  };
}

/** DEC-GEN-05: the node id answers carry, the configuration's or this host and process. */
export function nodeIdOf(config: ServiceConfig): string {
  return config.nodeId ?? `${hostname()}-${process.pid}`;
}

/** DEC-GEN-05: the version answers carry. */
export const serviceVersion: string = packageJson.version;

/** The store of `options`, and the end of its start (`LibsqlStores.syncEachCommit`; nothing to do for the others). */
async function openStores(
  options: ServiceOptions,
): Promise<{ readonly stores: Stores; readonly syncEachCommit: () => Promise<void> }> {
  const choice = options.store;
  const alwaysSynced = async () => {};
  // Loaded only by a service that uses it, like the PostgreSQL store below.
  if (choice.kind === "memory") {
    const { createMemoryStores } = await import("../store-memory/memory.stores.ts");
    return { stores: createMemoryStores(), syncEachCommit: alwaysSynced };
  }
  if (choice.kind === "postgres") {
    // The PostgreSQL driver and its schema are loaded only by a service that uses them (a faster start for the rest).
    const { openPostgresStores } = await import("../store-postgres/postgres.stores.ts");
    return { stores: await openPostgresStores({ url: choice.url }), syncEachCommit: alwaysSynced };
  }
  const stores = await openLibsqlStores({
    url: choice.url,
    // The start's own writes are synced together, once it has made them (below, in openService).
    startUnsynced: true,
    lookupThread: options.backgroundThread === true,
    // Lookups go on, on the HTTP thread: slower under load, nothing lost.
    onLookupThreadStopped: (error) =>
      options.logger.error("lookup thread stopped; lookups now read on the HTTP thread", {
        error: `${error.name}: ${error.message}`,
      }),
  });
  return { stores, syncEachCommit: () => stores.syncEachCommit() };
}

/** What applying the configuration changed: the users, keys and tenants, and the revisions published. */
interface ConfigurationReport {
  readonly seed: ApplyConfigReport;
  readonly revisionsPublished: number;
}

/**
 * DEC-OPS-03: the configuration applied to the store, idempotently: tenants, users and API keys, the configured
 * revisions and the engines' states. At every start, and by a reset (POST /admin/reset) to the erased store.
 */
async function applyConfiguration(
  stores: Stores,
  hasher: SecretHasher,
  clock: VirtualClock,
  revisions: RevisionsService,
  options: ServiceOptions,
): Promise<Result<ConfigurationReport, ConfigError>> {
  // Problems found while applying name the file, like the loader's (main.ts loads it with loadConfigFile).
  const source = configSourceOf(options.config) ?? "configuration";
  const seeded = await applyConfig(
    { stores, hasher, ids: cryptoIds, now: clock.now(), env: options.env, source },
    options.config,
  );
  if (!seeded.ok) return err(seeded.error);
  const published = await applyConfiguredRevisions(revisions, options.config, source);
  if (!published.ok) return err(published.error);
  await syncEngineStates(stores, options.config, clock.now());
  return ok({ seed: seeded.value, revisionsPublished: published.value.revisionsPublished });
}

/** An argon2id hasher of the service's own: its threads end with the service (`cleanups`). */
function ownArgon2Hasher(cleanups: Array<() => void>, options?: Argon2HasherOptions): SecretHasher {
  const hasher = createArgon2Hasher(options);
  cleanups.push(() => void hasher.close());
  return hasher;
}

/**
 * The composition root: opens the store, applies the configuration (idempotently), and wires the clock,
 * the scheduler and the HTTP app. main.ts and the tests build the service the same way.
 */
export async function openService(options: ServiceOptions): Promise<Result<Service, ConfigError>> {
  const nodeId = nodeIdOf(options.config);
  const cleanups: Array<() => void> = [];
  const dataDir = options.dataDir ? resolve(options.dataDir) : mkdtempSync(join(tmpdir(), "svc-hub-data-"));
  cleanups.push(() => {
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  // The background thread (of a store that holds data) loads its code while this thread opens the store.
  const spawned = spawnWorkThread(options, nodeId, dataDir);
  if (spawned && "spawned" in spawned) cleanups.push(() => void spawned.spawned.cancel());
  // Issue 43: compiled before the store is opened (a configuration built in code was not checked by the loader).
  await loadPlanCompiler(options.config);
  const plans = trackingPlansOf(options.config, configSourceOf(options.config));
  if (!plans.ok) {
    for (const cleanup of cleanups) cleanup();
    return err(plans.error);
  }
  let stores: Stores;
  let syncEachCommit: () => Promise<void>;
  try {
    const opened = await openStores(options);
    // Where a background thread commits the collected events, it judges them itself (background-entry.ts).
    stores = withJudgedEvents(opened.stores, plans.value);
    syncEachCommit = opened.syncEachCommit;
  } catch (error) {
    for (const cleanup of cleanups) cleanup();
    throw error;
  }
  // Secrets are hashed and checked in Unicode's composed form (core/session/secrets.rules.ts).
  const hasher = preparingSecrets(rememberingVerified(options.hasher ?? ownArgon2Hasher(cleanups)));
  // The admin API's hashes (a password reset, a new key) queue apart from logins: a flood of logins for
  // made-up names fills the login queue (503), and must not turn the operator's reset away with it.
  const adminHasher = preparingSecrets(
    options.hasher ?? ownArgon2Hasher(cleanups, { concurrency: 1, maxWaiting: 16, maxWaitingPerSource: 16 }),
  );
  try {
    const clock = await openVirtualClock(stores.settings, options.realNow);
    const revisions = new RevisionsService({
      stores,
      clock,
      digests: nodeDigests,
      zipper: deterministicZipper,
      filePrefix: options.config.revisionFilePrefix,
    });
    const configured = await applyConfiguration(stores, hasher, clock, revisions, options);
    if (!configured.ok) {
      await stores.close();
      for (const cleanup of cleanups) cleanup();
      return err(configured.error);
    }

    // The start's writes, made again by every start, were not synced one by one: synced now, together, and
    // every commit from here on (DEC-COL-08), the admin token this start may keep below included.
    await syncEachCommit();
    const storedToken = options.adminToken ? null : await readKeptAdminToken(stores.settings);
    const madeToken = options.adminToken || storedToken ? null : cryptoIds.randomToken(24);
    const adminToken =
      options.adminToken ?? storedToken ?? (await keepAdminToken(stores.settings, madeToken as string));
    // Made by this start only when no other node starting at once kept its own first: the banner prints it whole.
    const adminTokenGenerated = madeToken !== null && adminToken === madeToken;

    const backgroundDeps = {
      stores,
      clock,
      config: options.config,
      logger: options.logger,
      nodeId,
      dataDir,
      pollMs: options.pollMs,
    };
    const work = await openWork(spawned, backgroundDeps);
    clock.onChange(() => work.scheduler.notify());
    const auth = new AuthService({
      stores,
      hasher,
      ids: cryptoIds,
      clock,
      limits: options.config.limits,
      digests: nodeDigests,
      tokens: joseTokenSigner,
      eventLoop: hostEventLoop,
    });
    const metrics = new ServiceMetrics();
    const collector = new CollectService({
      stores: work.stores,
      clock,
      ids: cryptoIds,
      logger: options.logger,
      limits: options.config.limits,
      bots: isbotFilter,
      eventLoop: hostEventLoop,
      onCommitted: () => work.scheduler.eventsCommitted(),
      observeCommit: (events, ms) => metrics.observeCommit(events, ms),
      commitsInFlight: work.eventCommitsInFlight,
    });
    const printEvents = options.printEvents;
    if (printEvents) collector.journal.subscribe((entry) => printEvents(eventLineOf(entry)));
    const policy = profilePolicyFromLimits(options.config.limits);
    const moments = new MomentsService({ stores: work.stores });
    const eventStreams = new EventStreams();
    const requests = new RequestGate();
    // Issue 33: kept in memory per node; a reset forgets them on every node.
    const testingTools = {
      faults: new FaultPlan(cryptoIds),
      requestJournal: new RequestJournal(
        options.requestJournalBytes === undefined ? {} : { maxBytes: options.requestJournalBytes },
      ),
    };
    metrics.readFrom({
      collect: () => collector.stats.view(),
      commits: () => collector.commitStats(),
      requestsInFlight: () => requests.inFlightCount,
      liveFeeds: () => eventStreams.openCount,
      backlog: () => work.scheduler.backlog(),
    });
    const resets = new ResetService({
      stores,
      requests,
      holdWorkers: () => work.hold(),
      eventsSettled: () => collector.settled(),
      forgetInMemory: async () => {
        auth.forgetSigningKey();
        collector.forget();
        testingTools.faults.clear();
        testingTools.requestJournal.clear();
        await clock.refresh();
      },
      eraseFiles: () => work.fileImports.eraseFiles(),
      applyConfiguration: async (): Promise<ConfigurationApplied> => {
        const applied = await applyConfiguration(stores, hasher, clock, revisions, options);
        if (!applied.ok) throw new Error(`the configuration could not be applied again: ${applied.error.format()}`);
        await work.fileImports.prepareInboxes();
        const { seed, revisionsPublished } = applied.value;
        return {
          accounts: seed.accountsCreated,
          profiles: seed.profilesCreated,
          users: seed.usersCreated,
          apiKeys: seed.apiKeysCreated,
          revisions: revisionsPublished,
        };
      },
      ids: cryptoIds,
      logger: options.logger,
      eventLoop: hostEventLoop,
    });
    // The reset epoch as it is now, so that only a later reset by another process counts as one.
    await resets.follow();
    const timing = timingPresets[options.timing ?? options.config.timing];
    const ownStats = (): NodeCollectStats => ({ ...collector.stats.view(), commits: collector.commitStats() });
    // DEC-OPS-02, DEC-OPS-04: other processes on the store may move the virtual clock or reset the service; each
    // looks a few times a second, and a change made here answers once every other has seen it.
    const cluster = new ClusterSync({
      settings: stores.settings,
      nodeId,
      ids: cryptoIds,
      eventLoop: hostEventLoop,
      applyShared: async () => {
        await clock.refresh();
        await resets.follow();
      },
      publish: () => JSON.stringify(ownStats()),
      followEveryMs: sharedStateRefreshMs,
    });
    await cluster.follow();
    const sharedClock: VirtualClock = {
      ...clock,
      set: (targetMs) => cluster.changeShared(() => clock.set(targetMs)),
      advance: (byMs) => cluster.changeShared(() => clock.advance(byMs)),
    };
    const deps: AppDeps = {
      storeReady: async () => {
        await work.stores.ping();
        return work.stores.kind;
      },
      clock: sharedClock,
      scheduler: work.scheduler,
      logger: options.logger,
      ids: cryptoIds,
      hasher,
      config: options.config,
      timing,
      version: serviceVersion,
      nodeId,
      adminToken,
      auth,
      users: new UsersService({
        stores,
        hasher: adminHasher,
        ids: cryptoIds,
        clock,
        unlock: (email) => auth.unlock(email),
      }),
      dataLayers: new DataLayerService({
        store: work.stores.dataLayers,
        clock,
        ids: cryptoIds,
        timing,
        limits: options.config.limits,
        eventLoop: hostEventLoop,
        onChangeAccepted: () => work.scheduler.notify(),
      }),
      moments,
      privacy: new PrivacyService({
        stores: work.stores,
        clock,
        ids: cryptoIds,
        digests: nodeDigests,
        timing,
        policy,
        onDeletionRequested: ({ account, profile, value }) => {
          work.scheduler.notify();
          // DEC-PRV-05: the console's journal and the request journal of this node keep no request holding the
          // value from now on.
          collector.journal.forget((entry) => journalEntryHoldsErasedValue(entry, account, profile, value));
          testingTools.requestJournal.forget((request) => journaledRequestHoldsErasedValue(request, account, value));
        },
      }),
      revisions,
      fileImports: work.fileImports,
      fileStatus: new FileStatusService({ stores }),
      overview: new OverviewService({ stores }),
      collector,
      inspect: new InspectService({ stores: work.stores, journal: collector.journal, moments, clock, policy }),
      eventStreams,
      requests,
      testingTools,
      metrics,
      resets: { reset: () => cluster.changeShared(() => resets.reset()) },
      async collectStats() {
        // Every node publishes its counters at its next look: the barrier waits for that look.
        await cluster.changeShared(async () => undefined);
        const published = await cluster.published();
        const nodes = [...published.values()].flatMap((text) => {
          try {
            return [JSON.parse(text) as NodeCollectStats];
          } catch {
            return [];
          }
        });
        return combineCollectStats(nodes);
      },
    };
    let clockRefresh: ReturnType<typeof setInterval> | undefined;
    let lastLook: Promise<void> = Promise.resolve();
    let rateExchange: ReturnType<typeof setInterval> | undefined;
    let lastRateExchange: Promise<void> = Promise.resolve();
    return ok({
      app: createApp(deps),
      deps,
      stores: work.stores,
      seed: configured.value.seed,
      adminTokenGenerated,
      background: work.background,
      start() {
        work.start();
        // DEC-OPS-02: another process on the same database may move the virtual clock, or reset the service
        // (POST /admin/reset); look four times a second (ClusterSync).
        clockRefresh ??= setInterval(() => {
          lastLook = cluster.follow().catch(() => undefined);
        }, sharedStateRefreshMs);
        clockRefresh.unref?.();
        // DEC-COL-07: one collection rate limit for every process on the store (RateExchanger; it never throws).
        rateExchange ??= setInterval(() => {
          lastRateExchange = collector.exchangeRates();
        }, options.config.limits.collectRateExchangeMs);
        rateExchange.unref?.();
      },
      endStreams() {
        eventStreams.closeAll();
      },
      async close() {
        eventStreams.closeAll();
        if (clockRefresh) clearInterval(clockRefresh);
        if (rateExchange) clearInterval(rateExchange);
        await lastRateExchange;
        // A clean stop leaves no record behind, so the next process on the store is alone at once.
        await lastLook;
        await cluster
          .leave()
          .catch((error: unknown) =>
            options.logger.warn("could not remove this node's record from the store", { error: describeError(error) }),
          );
        await work.stop();
        await stores.close();
        for (const cleanup of cleanups) cleanup();
      },
    });
  } catch (error) {
    await stores.close();
    for (const cleanup of cleanups) cleanup();
    throw error;
  }
}
