import type { SecretHasher } from "../core/ports/hashing.port.ts";
import { loadConfigFile } from "../adapters/config/config.loader.ts";
import { demoConfigPath } from "../adapters/config/demo-config.ts";
import { createMemoryLogger } from "../adapters/runtime/logger.ts";
import { openService, type Service, type StoreChoice } from "../adapters/service.ts";
import { inProcessTarget, type Target, type TargetFixtures } from "./target.ts";

export interface InProcessService {
  readonly target: Target;
  readonly service: Service;
  close(): Promise<void>;
}

/** svc-hub's own app with the demo tenants, reached without a socket: the fastest target there is. */
export async function openInProcessTarget(
  options: { readonly store?: StoreChoice; readonly fixtures?: TargetFixtures; readonly hasher?: SecretHasher } = {},
): Promise<InProcessService> {
  const config = await loadConfigFile(demoConfigPath);
  if (!config.ok) throw new Error(`the demo configuration does not load: ${config.error.format()}`);
  const adminToken = "in-process-admin-token";
  const opened = await openService({
    store: options.store ?? { kind: "memory" },
    config: config.value,
    logger: createMemoryLogger(),
    env: {},
    adminToken,
    hasher: options.hasher,
  });
  if (!opened.ok) throw new Error(`the demo configuration cannot be applied: ${opened.error.format()}`);
  const service = opened.value;
  service.start();
  return {
    target: inProcessTarget({ handle: (request) => service.app.handle(request), adminToken, fixtures: options.fixtures }),
    service,
    close: () => service.close(),
  };
}
