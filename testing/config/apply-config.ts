/**
 * Applying a configuration in tests, in the core (core/config/apply-config.use-cases.test.ts) and in the adapters
 * (adapters/config/apply-config.test.ts, with the demo file the loader reads): configurations with the loader's
 * defaults, a fake hasher and the report of a start that changed nothing.
 */

import { type ApplyConfigReport, applyConfig, defaultLimits, type ServiceConfig } from "../../core/config/index.ts";
import type { SecretHasher, Stores } from "../../core/ports/index.ts";
import { defaultRevisionFilePrefix } from "../../core/revisions/index.ts";
import { countingIds } from "../fakes.ts";

/** The ids of every configuration applied in a test process: each token generation drawn differs from the others. */
export const configIds = countingIds();

/**
 * A configuration as the loader (adapters/config/config.loader.ts) makes it from a file that gives only these
 * parts: every default filled in.
 */
export function serviceConfigWith(parts: Partial<ServiceConfig> = {}): ServiceConfig {
  return {
    timing: "fast",
    limits: defaultLimits,
    accounts: [],
    users: [],
    apiKeys: [],
    revisionFilePrefix: defaultRevisionFilePrefix,
    revisions: [],
    ...parts,
  };
}

/** Deterministic and readable: the "hash" of s is `fake$s`. Counts calls so tests can see what was re-hashed. */
export function fakeHasher(): SecretHasher & { hashed: string[] } {
  const hashed: string[] = [];
  return {
    hashed,
    async hash(secret) {
      hashed.push(secret);
      return `fake$${secret}`;
    },
    async verify(secret, hash) {
      return hash === `fake$${secret}`;
    },
  };
}

export const nothingChanged: ApplyConfigReport = {
  accountsCreated: 0,
  profilesCreated: 0,
  profilesUpdated: 0,
  usersCreated: 0,
  usersUpdated: 0,
  apiKeysCreated: 0,
  apiKeysUpdated: 0,
};

/** Applies `serviceConfig` to `stores` at `now` (1000), with `env` (none) and `hasher` (fakeHasher); throws a refusal. */
export async function apply(
  stores: Stores,
  serviceConfig: ServiceConfig,
  options: { now?: number; env?: Record<string, string>; hasher?: SecretHasher } = {},
): Promise<ApplyConfigReport> {
  const result = await applyConfig(
    {
      stores,
      hasher: options.hasher ?? fakeHasher(),
      ids: configIds,
      now: options.now ?? 1000,
      env: options.env ?? {},
    },
    serviceConfig,
  );
  if (!result.ok) throw new Error(result.error.format());
  return result.value;
}
