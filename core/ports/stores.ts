import type { LockoutStore, SessionStore } from "./sessions.store.ts";
import type { SettingsStore } from "./settings.store.ts";
import type { TenancyStore } from "./tenancy.store.ts";

/** Every store of the service, as one implementation (libSQL or in-memory) provides them. */
export interface Stores {
  readonly kind: "libsql" | "memory";
  readonly tenancy: TenancyStore;
  readonly settings: SettingsStore;
  readonly sessions: SessionStore;
  readonly lockouts: LockoutStore;
  /** Resolves when the store answers a trivial query (readiness, DEC-OPS-01); rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
