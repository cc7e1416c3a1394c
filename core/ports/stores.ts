import type { DataLayerStore } from "./datalayer.store.ts";
import type { EventStore } from "./events.store.ts";
import type { FileStatusStore } from "./files.store.ts";
import type { PrivacyStore } from "./privacy.store.ts";
import type { ProfileStore } from "./profiles.store.ts";
import type { RateCountStore } from "./rate-counts.store.ts";
import type { ReceivedFileStorage } from "./received-files.port.ts";
import type { RevisionStore } from "./revisions.store.ts";
import type { LockoutStore, SessionStore } from "./sessions.store.ts";
import type { SettingsStore } from "./settings.store.ts";
import type { TenancyStore } from "./tenancy.store.ts";

/** What `Stores.eraseAll` removed: the records of each kind (the rows that hang off them are not counted). */
export interface ErasedRecords {
  readonly accounts: number;
  readonly profiles: number;
  readonly users: number;
  readonly apiKeys: number;
  readonly sessions: number;
  readonly lockouts: number;
  readonly events: number;
  /** Visitor profiles: one per stitched group. */
  readonly visitorProfiles: number;
  /** Data layers: one per name ever uploaded to a profile. */
  readonly dataLayers: number;
  readonly revisions: number;
  readonly privacyTransactions: number;
  readonly fileImports: number;
  /** Files received for import, when the store keeps them (`Stores.receivedFiles`). */
  readonly receivedFiles?: number;
  /** Settings: the virtual clock's offset, the token signing key, the workers' cursors, leases and marks. */
  readonly settings: number;
}

export interface EraseOptions {
  /** Settings that stay (the admin token, keys of the installation, the lease a running process holds). */
  readonly keepSettings: readonly string[];
}

/** Every store of the service, as one adapter provides them. */
export interface Stores {
  /**
   * The adapter's own name for itself (for example "libsql"), which the readiness answer reports
   * (DEC-OPS-01). The core gives it no meaning: any adapter may implement the port under its own name.
   */
  readonly kind: string;
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
  /** What each node admitted of each account lately, for one collection rate limit across nodes (DEC-COL-07). */
  readonly rateCounts: RateCountStore;
  /**
   * The files received for import, when the store keeps them itself so that every node reads them (svc-hub's
   * PostgreSQL store). Absent: the host keeps them (svc-hub: each node's data directory).
   */
  readonly receivedFiles?: ReceivedFileStorage;
  /**
   * svc-hub's own admin API (POST /admin/reset): removes every record of every store, except the settings
   * named, all at once: no reader sees part of it done. Sequence numbers (the events') go on from where they
   * were, so a number read before never names a record made after.
   */
  eraseAll(options: EraseOptions): Promise<ErasedRecords>;
  /** Resolves when the store answers a trivial query (readiness, DEC-OPS-01); rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
