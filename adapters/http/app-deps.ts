import type { CollectService, NodeCollectStats } from "../../core/collect/index.ts";
import type { ServiceConfig } from "../../core/config/index.ts";
import type { DataLayerService } from "../../core/datalayer/index.ts";
import type { FileImportService, FileStatusService } from "../../core/files/index.ts";
import type { InspectService } from "../../core/inspect/index.ts";
import type { MomentsService } from "../../core/moments/index.ts";
import type { OverviewService } from "../../core/overview/index.ts";
import type { IdSource, Logger, SecretHasher, WorkScheduler } from "../../core/ports/index.ts";
import type { PrivacyService } from "../../core/privacy/index.ts";
import type { RevisionsService } from "../../core/revisions/index.ts";
import type { ResetService } from "../../core/service/index.ts";
import type { AuthService, UsersService } from "../../core/session/index.ts";
import type { TimingPreset } from "../../core/timing/index.ts";
import type { RequestGate } from "../runtime/request-gate.ts";
import type { ServiceMetrics } from "../runtime/service-metrics.ts";
import type { VirtualClock } from "../runtime/virtual-clock.ts";
import type { EventStreams } from "./event-stream.ts";
import type { TestingTools } from "./faults-and-journal.ts";

/** Everything the HTTP app needs, built by the composition root (adapters/server/service.ts). */
export interface AppDeps {
  /**
   * DEC-OPS-01 (readiness): resolves with the store's kind when it answers a trivial query, rejects otherwise.
   * The routes reach the store only through the use cases below; this is the one look at the store itself.
   */
  readonly storeReady: () => Promise<string>;
  readonly clock: VirtualClock;
  readonly scheduler: WorkScheduler;
  readonly logger: Logger;
  readonly ids: IdSource;
  readonly hasher: SecretHasher;
  readonly config: ServiceConfig;
  readonly timing: TimingPreset;
  /** DEC-GEN-05: the package version. */
  readonly version: string;
  /** DEC-GEN-05: this node's id. */
  readonly nodeId: string;
  /** DEC-OPS-01: the bearer token of the admin API. */
  readonly adminToken: string;
  /** Use-cases of sessions, tokens and tenant access. */
  readonly auth: AuthService;
  /** Admin use-cases of users and API keys. */
  readonly users: UsersService;
  /** Use-cases of the hosted data layer API (DLE-*, DEC-DLE-*) and of serving data layers (DEC-DLE-07). */
  readonly dataLayers: DataLayerService;
  /** The visitor-data (moments) lookups (MOM-*, DEC-MOM-*). */
  readonly moments: MomentsService;
  /** Use-cases of the visitor privacy API (PRV-*, DEC-PRV-*). */
  readonly privacy: PrivacyService;
  /** Use-cases of the revisions API and of publishing (REV-*, DEC-REV-*). */
  readonly revisions: RevisionsService;
  /** File import: the admin upload and the drop folders (DEC-FIL-01..05, DEC-OPS-04). */
  readonly fileImports: FileImportService;
  /** The file status API, v1 and v2 (FIL-*, DEC-FIL-05/06). */
  readonly fileStatus: FileStatusService;
  /** The console's view of a profile (issue 32): its data layers, revisions, file imports and privacy transactions. */
  readonly overview: OverviewService;
  /** The collection use-case (COL-*, VID-*, DEC-COL-*), with its rate windows, group commit and journal. */
  readonly collector: CollectService;
  /** The console's explanation of an event and lookup of a visitor (issue 32). */
  readonly inspect: InspectService;
  /** The live feeds open on this node (GET /admin/events/live), ended when the server stops. */
  readonly eventStreams: EventStreams;
  /** The requests in flight: a reset runs while no other does (POST /admin/reset). */
  readonly requests: RequestGate;
  /**
   * svc-hub's own admin API: POST /admin/reset. It answers once every other node on the store has forgotten
   * what it kept in memory of it too (ClusterSync).
   */
  readonly resets: Pick<ResetService, "reset">;
  /** Issue 33: the faults (/admin/faults) and the request journal (/admin/requests) of this node. */
  readonly testingTools: TestingTools;
  /** GET /metrics (issue 33): this process's metrics, in a registry of its own. */
  readonly metrics: ServiceMetrics;
  /** GET /admin/collect/stats: the collection counters of every node on the store, as they are now. */
  readonly collectStats: () => Promise<NodeCollectStats>;
}
