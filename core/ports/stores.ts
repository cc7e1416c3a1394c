import type { EventStore } from "./events.store.ts";
import type { FileStatusStore } from "./files.store.ts";
import type { DataLayerStore } from "./datalayer.store.ts";
import type { ProfileStore } from "./profiles.store.ts";
import type { PrivacyStore } from "./privacy.store.ts";
import type { RevisionStore } from "./revisions.store.ts";
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
  /** Collected events (COL-16, DEC-COL-08). */
  readonly events: EventStore;
  /** Hosted data layers and their changes (DLE-*, DEC-DLE-05..09). */
  readonly dataLayers: DataLayerStore;
  /** Published revisions and their bundles (REV-*, DEC-REV-*). */
  readonly revisions: RevisionStore;
  /** Visitor profiles, stitched groups and engine states (DEC-PRO-03, VID-08, DEC-MOM-04). */
  readonly profiles: ProfileStore;
  /** Visitor privacy transactions and their audit (PRV-05..12, DEC-PRV-03/04). */
  readonly privacy: PrivacyStore;
  /** File imports and their status (FIL-*, DEC-FIL-*). */
  readonly files: FileStatusStore;
  /** Resolves when the store answers a trivial query (readiness, DEC-OPS-01); rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
