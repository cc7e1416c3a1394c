/**
 * The ports: what the adapters implement for the core. The stores, and what a use case needs of its host: time
 * (and the clock the admin wait moves), randomness, hashing and signed tokens, the event loop and its timers,
 * leases, logging, the background scheduler, received files with their CSV rows and the drop folders, the kept
 * copies of imported files, a collection request and the bot verdict, a bundle's zipper, and the admission of
 * requests during a reset. Beside them, the few rules every implementation of a port shares.
 */

export type { BackgroundWorker, DrainOptions, DrainReport, WorkerBacklog, WorkScheduler } from "./background.port.ts";
export type { BotFilter } from "./bot-filter.port.ts";
export type { Clock } from "./clock.port.ts";
export type { CollectHeaders, CollectMethod, IncomingCollectRequest } from "./collect-request.port.ts";
export type { CsvRow, CsvRowSource, RowReadingFailure } from "./csv-rows.port.ts";
export {
  type ChangeSettlement,
  type DataLayerChange,
  type DataLayerChangeKind,
  type DataLayerChangeState,
  type DataLayerKey,
  type DataLayerRecord,
  type DataLayerStore,
  type ListedDataLayer,
  type ListedDataLayerRow,
  listedDataLayerOf,
  type ServedDataLayer,
  type ServedDataLayerHead,
  servedHeadCharacters,
} from "./datalayer.store.ts";
export type { DropFolderInbox, DropReceipt, ReceiveDropped } from "./drop-folders.port.ts";
export type { EventLoop } from "./event-loop.port.ts";
export {
  type CollectedEvent,
  checkVisitorIds,
  deleteRunReceivedBefore,
  type EventQuery,
  type EventReceipt,
  type EventStore,
  maxVisitorIdsPerQuery,
  type StoredEvent,
  searchNeedle,
  tallyVerdicts,
  type ValueErasure,
  type Verdict,
  type VerdictCount,
  type VerdictCountQuery,
  type Violation,
  verdicts,
} from "./events.store.ts";
export type { FileSourceType, FileStatusRecord, FileStatusStore, ImportedFile, ImportProgress } from "./files.store.ts";
export type { Digests, SecretHasher } from "./hashing.port.ts";
export type { IdSource } from "./ids.port.ts";
export type { ImportedFileEraser, ImportedFilesErasure } from "./imported-files.port.ts";
export type { Lease, LeaseFactory } from "./lease.port.ts";
export type { Logger } from "./logger.port.ts";
export type { MovableClock } from "./movable-clock.port.ts";
export type {
  DeletionSettlement,
  ListedPrivacyTransaction,
  PrivacyAuditAction,
  PrivacyAuditRecord,
  PrivacyStore,
  PrivacyTransaction,
  PrivacyTransactionKind,
  PrivacyTransactionState,
} from "./privacy.store.ts";
export type { FoundForEngine, MergeRecord, ProfileSave, ProfileStore } from "./profiles.store.ts";
export type { RateCount, RateCountExchange, RateCountStore } from "./rate-counts.store.ts";
export type {
  ByteRange,
  ByteSource,
  KeptFile,
  ReceivedBytes,
  ReceivedFileStorage,
  StoredBytes,
} from "./received-files.port.ts";
export type { RepeatingTimer } from "./repeating-timer.port.ts";
export type { RequestAdmission } from "./request-admission.port.ts";
export type { NewRevision, RevisionStore, StoredRevision } from "./revisions.store.ts";
export type { LockoutKind, LockoutStore, SessionRecord, SessionStore, VersionedLockout } from "./sessions.store.ts";
export type { SettingsStore } from "./settings.store.ts";
export type { ErasedRecords, EraseOptions, Stores } from "./stores.ts";
export type {
  AccountRecord,
  ApiKeyRecord,
  ProfileRecord,
  TenancyStore,
  UserChanges,
  UserRecord,
} from "./tenancy.store.ts";
export type { TokenClaims, TokenSigner, VerifiedToken } from "./token-signer.port.ts";
export type { EventSchemaCheck, ProfilePlanChecks, TrackingPlans } from "./tracking-plans.port.ts";
export type { BundleZipper, ZipEntry } from "./zip.port.ts";
