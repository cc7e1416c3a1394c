import type { SettingsStore } from "../../core/ports/index.ts";

/**
 * DEC-OPS-01: the admin token made at first start is kept in the settings store, so that every node on a
 * shared database accepts the same one, a restart keeps it, and `svc-hub admin-token` can print it.
 */
const adminTokenKey = "admin.token";

/** The admin token kept in the store, or null when none was made (every start so far had SVC_ADMIN_TOKEN). */
export function readKeptAdminToken(settings: SettingsStore): Promise<string | null> {
  return settings.get(adminTokenKey);
}

/** Keeps `token` unless another process kept one first; answers the one kept. */
export function keepAdminToken(settings: SettingsStore, token: string): Promise<string> {
  return settings.setIfAbsent(adminTokenKey, token);
}
