/**
 * svc-hub with the demo tenants, built as main.ts builds it but without a socket: for tests, benchmarks and the
 * conformance suite's in-process run (conformance/implementations/svc-hub/in-process.ts).
 */
import type { ServiceConfig } from "../../core/config/index.ts";
import type { SecretHasher } from "../../core/ports/index.ts";
import type { TimingPresetName } from "../../core/timing/index.ts";
import { loadConfigFile } from "../config/config.loader.ts";
import { demoConfigPath } from "../config/demo-config.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openService, type Service, type StoreChoice } from "./service.ts";

export interface DemoServiceOptions {
  readonly store?: StoreChoice;
  readonly hasher?: SecretHasher;
  readonly timing?: TimingPresetName;
  readonly dataDir?: string;
  readonly adminToken?: string;
  /** libSQL only: the background work in its own thread, as main.ts runs it. */
  readonly backgroundThread?: boolean;
  /** Tenants of another configuration instead of the demo's (for a suite run against other names). */
  readonly config?: ServiceConfig;
  /** The request journal's byte budget (SVC_REQUEST_JOURNAL_BYTES); 0 turns it off. */
  readonly requestJournalBytes?: number;
  /** The real time under the virtual clock (ServiceOptions.realNow). */
  readonly realNow?: () => number;
}

/** svc-hub with the demo tenants (or `options.config`'s), built as main.ts builds it but not started (its workers run when drained). */
export async function openDemoService(options: DemoServiceOptions = {}): Promise<Service> {
  let config = options.config;
  if (config === undefined) {
    const loaded = await loadConfigFile(demoConfigPath);
    if (!loaded.ok) throw new Error(`the demo configuration does not load: ${loaded.error.format()}`);
    config = loaded.value;
  }
  const opened = await openService({
    store: options.store ?? { kind: "memory" },
    config,
    logger: createMemoryLogger(),
    env: {},
    adminToken: options.adminToken ?? "in-process-admin-token",
    hasher: options.hasher,
    timing: options.timing,
    dataDir: options.dataDir,
    backgroundThread: options.backgroundThread,
    requestJournalBytes: options.requestJournalBytes,
    realNow: options.realNow,
  });
  if (!opened.ok) throw new Error(`the demo configuration cannot be applied: ${opened.error.format()}`);
  return opened.value;
}
