import type { CollectErrorCode } from "../errors/collect.errors.ts";

/** One refused request, kept so that a user can see why an event did not arrive. */
export interface CollectRejection {
  /** Virtual-clock time, ISO 8601. */
  readonly at: string;
  readonly method: string;
  readonly status: number;
  readonly reason: CollectErrorCode;
  readonly xError: string;
  /** svc_account, svc_profile and svc_trace_id as far as the request could be read. */
  readonly account: string | null;
  readonly profile: string | null;
  readonly traceId: string | null;
  readonly userAgent: string | null;
}

export interface CollectStatsView {
  readonly accepted: number;
  /** DEC-COL-06: the filtered-bots metric. */
  readonly filteredBots: number;
  readonly rateLimited: number;
  readonly storageUnavailable: number;
  /** Every refusal, counted by reason. */
  readonly rejected: Readonly<Record<string, number>>;
  /** The latest refusals, newest first. */
  readonly recentRejections: CollectRejection[];
}

const keptRejections = 100;
const userAgentChars = 200;

/**
 * Counters of the collection endpoint, per process (they restart at zero with the process): accepted
 * events, filtered bots (DEC-COL-06), refusals by reason, and the latest refusals with their X-Error.
 */
export class CollectStats {
  accepted = 0;
  filteredBots = 0;
  private readonly rejected = new Map<CollectErrorCode, number>();
  private readonly recent: CollectRejection[] = [];

  /** Every counter back to zero, the latest refusals forgotten (POST /admin/reset). */
  clear(): void {
    this.accepted = 0;
    this.filteredBots = 0;
    this.rejected.clear();
    this.recent.length = 0;
  }

  recordRejection(rejection: CollectRejection): void {
    this.rejected.set(rejection.reason, (this.rejected.get(rejection.reason) ?? 0) + 1);
    const userAgent = rejection.userAgent === null ? null : rejection.userAgent.slice(0, userAgentChars);
    this.recent.push({ ...rejection, userAgent });
    if (this.recent.length > keptRejections) this.recent.shift();
  }

  view(): CollectStatsView {
    return {
      accepted: this.accepted,
      filteredBots: this.filteredBots,
      rateLimited: this.rejected.get("rateLimited") ?? 0,
      storageUnavailable: this.rejected.get("storageUnavailable") ?? 0,
      rejected: Object.fromEntries(this.rejected),
      recentRejections: [...this.recent].reverse(),
    };
  }
}

/** How a node's group commits went (GroupCommitWriter's stats). */
export interface CollectCommitsView {
  readonly batches: number;
  readonly committed: number;
  readonly failedBatches: number;
  readonly largestBatch: number;
  readonly pending: number;
}

/** What one node publishes of its collection endpoint for the others (ClusterSync). */
export interface NodeCollectStats extends CollectStatsView {
  readonly commits: CollectCommitsView;
}

/**
 * The collection counters of several nodes sharing a store, as one: counts added up, the largest batch the
 * largest of all, and the latest refusals of all of them, newest first, as many as one node keeps.
 */
export function combineCollectStats(nodes: readonly NodeCollectStats[]): NodeCollectStats {
  const rejected: Record<string, number> = {};
  for (const node of nodes)
    for (const [reason, count] of Object.entries(node.rejected)) rejected[reason] = (rejected[reason] ?? 0) + count;
  const sum = (of: (node: NodeCollectStats) => number) => nodes.reduce((total, node) => total + of(node), 0);
  return {
    accepted: sum((node) => node.accepted),
    filteredBots: sum((node) => node.filteredBots),
    rateLimited: sum((node) => node.rateLimited),
    storageUnavailable: sum((node) => node.storageUnavailable),
    rejected,
    recentRejections: nodes
      .flatMap((node) => node.recentRejections)
      .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
      .slice(0, keptRejections),
    commits: {
      batches: sum((node) => node.commits.batches),
      committed: sum((node) => node.commits.committed),
      failedBatches: sum((node) => node.commits.failedBatches),
      largestBatch: nodes.reduce((largest, node) => Math.max(largest, node.commits.largestBatch), 0),
      pending: sum((node) => node.commits.pending),
    },
  };
}
