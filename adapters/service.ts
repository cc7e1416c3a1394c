import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { ServiceConfig } from "../core/config/config.model.ts";
import type { SecretHasher } from "../core/ports/hashing.port.ts";
import type { Stores } from "../core/ports/stores.ts";
import { err, ok, type Result } from "../core/result.ts";
import { timingPresets, type TimingPresetName } from "../core/timing/timing.presets.ts";
import type { ConfigError } from "./config/config.problems.ts";
import { applyConfig, type SeedReport } from "./config/seed-config.ts";
import { applyConfiguredRevisions } from "./config/seed-revisions.ts";
import type { AppDeps } from "./http/app-deps.ts";
import { createApp, type App } from "./http/app.ts";
import { createArgon2Hasher, cryptoIds } from "./runtime/crypto.ts";
import { FileImportService } from "./services/file-import.service.ts";
import { FileStatusService } from "./services/file-status.service.ts";
import { fileImportWorker } from "./workers/file-import.worker.ts";
import type { Logger } from "./runtime/logger.ts";
import { Scheduler } from "./runtime/scheduler.ts";
import { openVirtualClock } from "./runtime/virtual-clock.ts";
import { AuthService } from "./services/auth.service.ts";
import { UsersService } from "./services/users.service.ts";
import { RevisionsService } from "./services/revisions.service.ts";
import { sessionPolicyFromLimits } from "../core/session/session.rules.ts";
import { sessionJanitor } from "./workers/session-janitor.worker.ts";
import { profileWorker } from "./workers/profile.worker.ts";
import { visitorDeletionWorker } from "./workers/visitor-deletion.worker.ts";
import { eraseVisitor } from "./services/privacy.service.ts";
import { eraseFromImportedFiles } from "./services/imported-files.eraser.ts";
import { createLease } from "./runtime/lease.ts";
import { ProfilesService, syncEngineStates } from "./services/profiles.service.ts";
import { profilePolicyFromLimits } from "../core/profiles/profile.rules.ts";
import { dataLayerPublisher } from "./workers/datalayer-publisher.worker.ts";
import { createMemoryStores } from "./store-memory/memory.stores.ts";
import { openLibsqlStores } from "./store-libsql/libsql.stores.ts";
import packageJson from "../package.json" with { type: "json" };

export type StoreChoice = { readonly kind: "memory" } | { readonly kind: "libsql"; readonly url: string };

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
   * SVC_DATA_DIR: holds the file import drop folders (`inbox/`) and the files received (`files/`), beside the
   * libSQL database. Absent: a temporary folder, removed by close() (tests, throw-away runs).
   */
  readonly dataDir?: string;
}

export interface Service {
  readonly app: App;
  readonly deps: AppDeps;
  readonly seed: SeedReport;
  /** Whether the admin token was made by this start (so the banner can say it is new). */
  readonly adminTokenGenerated: boolean;
  /** Starts the background workers. */
  start(): void;
  /** Stops the workers and closes the store. */
  close(): Promise<void>;
}

const adminTokenKey = "admin.token";

async function openStores(choice: StoreChoice): Promise<Stores> {
  return choice.kind === "memory" ? createMemoryStores() : openLibsqlStores({ url: choice.url });
}

/**
 * The composition root: opens the store, applies the configuration (idempotently), and wires the clock,
 * the scheduler and the HTTP app. main.ts and the tests build the service the same way.
 */
export async function openService(options: ServiceOptions): Promise<Result<Service, ConfigError>> {
  const stores = await openStores(options.store);
  const hasher = options.hasher ?? createArgon2Hasher();
  const cleanups: Array<() => void> = [];
  try {
    const clock = await openVirtualClock(stores.settings);
    const seeded = await applyConfig({ stores, hasher, now: clock.now(), env: options.env }, options.config);
    if (!seeded.ok) {
      await stores.close();
      return err(seeded.error);
    }
    const revisions = new RevisionsService({ stores, clock, filePrefix: options.config.revisionFilePrefix });
    const revisionsSeeded = await applyConfiguredRevisions(revisions, options.config);
    if (!revisionsSeeded.ok) {
      await stores.close();
      return err(revisionsSeeded.error);
    }

    const storedToken = options.adminToken ? null : await stores.settings.get(adminTokenKey);
    const adminTokenGenerated = !options.adminToken && !storedToken;
    const adminToken = options.adminToken ?? storedToken ?? (await stores.settings.setIfAbsent(adminTokenKey, cryptoIds.randomToken(24)));

    const scheduler = new Scheduler({ clock, logger: options.logger, pollMs: options.pollMs });
    let clockRefresh: ReturnType<typeof setInterval> | undefined;
    clock.onChange(() => scheduler.notify());
    scheduler.register(sessionJanitor({ sessions: stores.sessions, clock, policy: sessionPolicyFromLimits(options.config.limits) }));
    scheduler.register(dataLayerPublisher({ store: stores.dataLayers, logger: options.logger }));
    await syncEngineStates(stores, options.config, clock.now());
    const nodeId = options.config.nodeId ?? `${hostname()}-${process.pid}`;
    const dataDir = options.dataDir ? resolve(options.dataDir) : mkdtempSync(join(tmpdir(), "svc-hub-data-"));
    cleanups.push(() => {
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    });
    // DEC-FIL-01..05: registered before the profile worker, so one pass imports rows and applies them.
    const fileImports = new FileImportService({
      stores,
      clock,
      ids: cryptoIds,
      nodeId,
      host: hostname(),
      dataDir,
      maxRecordBytes: options.config.limits.maxImportRecordBytes,
      logger: options.logger,
      notify: () => scheduler.notify(),
    });
    await fileImports.prepareInboxes();
    scheduler.register(fileImportWorker({ imports: fileImports }));
    const profiles = new ProfilesService({ stores, policy: profilePolicyFromLimits(options.config.limits) });
    const profilesLeaseHolder = `${nodeId}-${cryptoIds.randomHex(4)}`;
    const profilesWorker = profileWorker({ stores, profiles, logger: options.logger, nodeId: profilesLeaseHolder });
    scheduler.register(profilesWorker);
    // PRV-09, DEC-PRV-04: after the import and profile workers, and catching both up first, so every stored row
    // is an event and stitching is complete when a visitor is erased (with the kept copies of imported files).
    // Only the holder of the profiles lease erases, so no profile update of another node interleaves with it.
    const importsCatchUp = fileImportWorker({ imports: fileImports });
    const profilesLease = createLease(stores.settings, "profiles", profilesLeaseHolder, 15_000);
    scheduler.register(
      visitorDeletionWorker({
        store: stores.privacy,
        mayRun: () => profilesLease.acquire(),
        erase: async (transaction) => ({
          ...(await eraseVisitor(stores, transaction)),
          ...(await eraseFromImportedFiles({ stores, dataDir, logger: options.logger }, transaction)),
        }),
        beforeErasing: async (now) => {
          while ((await importsCatchUp.runDue(now)) > 0);
          while ((await profilesWorker.runDue(now)) > 0);
        },
        logger: options.logger,
      }),
    );
    const deps: AppDeps = {
      stores,
      clock,
      scheduler,
      logger: options.logger,
      ids: cryptoIds,
      hasher,
      config: options.config,
      timing: timingPresets[options.timing ?? options.config.timing],
      version: packageJson.version,
      nodeId,
      adminToken,
      auth: new AuthService({ stores, hasher, ids: cryptoIds, clock, limits: options.config.limits }),
      users: new UsersService({ stores, hasher, ids: cryptoIds, clock }),
      revisions,
      fileImports,
      fileStatus: new FileStatusService({ stores }),
    };
    return ok({
      app: createApp(deps),
      deps,
      seed: seeded.value,
      adminTokenGenerated,
      start() {
        scheduler.start();
        // DEC-OPS-02: another process on the same database may move the virtual clock; look four times a second.
        clockRefresh ??= setInterval(() => void clock.refresh().catch(() => undefined), 250);
        clockRefresh.unref?.();
      },
      async close() {
        if (clockRefresh) clearInterval(clockRefresh);
        await scheduler.stop();
        await profilesLease.release().catch(() => undefined);
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
