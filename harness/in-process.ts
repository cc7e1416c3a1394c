import type { SecretHasher } from "../core/ports/hashing.port.ts";
import { loadConfigFile } from "../adapters/config/config.loader.ts";
import { demoConfigPath } from "../adapters/config/demo-config.ts";
import { createMemoryLogger } from "../adapters/runtime/logger.ts";
import { openService, type Service, type StoreChoice } from "../adapters/service.ts";
import type { TimingPresetName } from "../core/timing/timing.presets.ts";
import { inProcessTarget, type Target, type TargetFixtures } from "./target.ts";

export interface InProcessService {
  readonly target: Target;
  readonly service: Service;
  close(): Promise<void>;
}

export interface DemoServiceOptions {
  readonly store?: StoreChoice;
  readonly hasher?: SecretHasher;
  readonly timing?: TimingPresetName;
  readonly dataDir?: string;
  readonly adminToken?: string;
  /** libSQL only: the background work in its own thread, as main.ts runs it. */
  readonly backgroundThread?: boolean;
}

/** svc-hub with the demo tenants, built as main.ts builds it but not started (its workers run when drained). */
export async function openDemoService(options: DemoServiceOptions = {}): Promise<Service> {
  const config = await loadConfigFile(demoConfigPath);
  if (!config.ok) throw new Error(`the demo configuration does not load: ${config.error.format()}`);
  const opened = await openService({
    store: options.store ?? { kind: "memory" },
    config: config.value,
    logger: createMemoryLogger(),
    env: {},
    adminToken: options.adminToken ?? "in-process-admin-token",
    hasher: options.hasher,
    timing: options.timing,
    dataDir: options.dataDir,
    backgroundThread: options.backgroundThread,
  });
  if (!opened.ok) throw new Error(`the demo configuration cannot be applied: ${opened.error.format()}`);
  return opened.value;
}

/** svc-hub's own app with the demo tenants, reached without a socket: the fastest target there is. */
export async function openInProcessTarget(
  options: { readonly store?: StoreChoice; readonly fixtures?: TargetFixtures; readonly hasher?: SecretHasher } = {},
): Promise<InProcessService> {
  const service = await openDemoService({ store: options.store, hasher: options.hasher });
  service.start();
  return {
    target: inProcessTarget({ handle: (request) => service.app.handle(request), adminToken: service.deps.adminToken, fixtures: options.fixtures }),
    service,
    close: () => service.close(),
  };
}
