import { hostname } from "node:os";
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
import type { Logger } from "./runtime/logger.ts";
import { Scheduler } from "./runtime/scheduler.ts";
import { openVirtualClock } from "./runtime/virtual-clock.ts";
import { AuthService } from "./services/auth.service.ts";
import { UsersService } from "./services/users.service.ts";
import { RevisionsService } from "./services/revisions.service.ts";
import { sessionPolicyFromLimits } from "../core/session/session.rules.ts";
import { sessionJanitor } from "./workers/session-janitor.worker.ts";
import { profileWorker } from "./workers/profile.worker.ts";
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
    clock.onChange(() => scheduler.notify());
    scheduler.register(sessionJanitor({ sessions: stores.sessions, clock, policy: sessionPolicyFromLimits(options.config.limits) }));
    scheduler.register(dataLayerPublisher({ store: stores.dataLayers, logger: options.logger }));
    await syncEngineStates(stores, options.config, clock.now());
    const profiles = new ProfilesService({ stores, policy: profilePolicyFromLimits(options.config.limits) });
    scheduler.register(profileWorker({ stores, profiles, logger: options.logger }));
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
      nodeId: options.config.nodeId ?? `${hostname()}-${process.pid}`,
      adminToken,
      auth: new AuthService({ stores, hasher, ids: cryptoIds, clock, limits: options.config.limits }),
      users: new UsersService({ stores, hasher, ids: cryptoIds, clock }),
      revisions,
    };
    return ok({
      app: createApp(deps),
      deps,
      seed: seeded.value,
      adminTokenGenerated,
      start: () => scheduler.start(),
      async close() {
        await scheduler.stop();
        await stores.close();
      },
    });
  } catch (error) {
    await stores.close();
    throw error;
  }
}
