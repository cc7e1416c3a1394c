import type { EventLoop } from "../ports/event-loop.port.ts";
import type { IdSource } from "../ports/ids.port.ts";
import type { SettingsStore } from "../ports/settings.store.ts";

/** Changes whenever one node changed what every node keeps in memory of the store (the clock, a reset). */
export const clusterGenerationKey = "cluster.generation";
/** `cluster.node.<nodeId>`: the generation the node applied last, and a count that moves at each look. */
export const clusterNodePrefix = "cluster.node.";
/** `cluster.published.<nodeId>`: what the node publishes for the others to read (its collection counters). */
export const clusterPublishedPrefix = "cluster.published.";

/**
 * Looks after which another node's record that has not moved is taken as left behind by a process that
 * stopped without leaving (a restart after a kill, a crash): it is removed, so the node is alone again and its
 * looks stop writing. Far more than the barrier's three: a node alone does not write at its looks, and a live
 * one sees a newcomer's record and starts writing at its next look.
 */
export const stoppedAfterLooks = 20;

interface NodeEntry {
  readonly generation: string | null;
  readonly beat: number;
}

function entryOf(raw: string | null): NodeEntry | null {
  if (raw === null) return null;
  const bar = raw.lastIndexOf("|");
  const beat = Number(raw.slice(bar + 1));
  if (bar < 0 || !Number.isSafeInteger(beat)) return null;
  const generation = raw.slice(0, bar);
  return { generation: generation === "" ? null : generation, beat };
}

export interface ClusterSyncDeps {
  readonly settings: SettingsStore;
  /** This node's id (DEC-GEN-05), unique among the processes sharing the store. */
  readonly nodeId: string;
  readonly ids: IdSource;
  readonly eventLoop: EventLoop;
  /** What this node does when another changed the shared state: read the clock again, follow a reset. */
  readonly applyShared: () => Promise<void>;
  /** What this node publishes for the others at each look (JSON text), or null for nothing. */
  readonly publish?: () => string | null;
  /** How often each node looks (`follow`): a node that has not looked for three of these is taken as gone. */
  readonly followEveryMs: number;
}

/**
 * Several processes on one store (DEC-OPS-02, DEC-OPS-04): each keeps in memory what it read of the shared
 * state (the virtual clock's offset, its rate windows and tenants until a reset), and looks a few times a
 * second whether another changed it. That look leaves a window in which a node still answers with the old
 * state: a test that moves the clock on node A and then collects on node B must not fall in it. So a node that
 * changes the shared state calls `barrier`, which answers once every other live node has looked since:
 * the node records the generation it applied, and the barrier waits for each node's record to name the new one,
 * giving up on a node whose record has not moved for three looks (it stopped; its record is removed). On one
 * node alone the barrier answers at once.
 */
export class ClusterSync {
  private beat = 0;
  private lastPublished: string | null = null;
  /** The generation of this node's record as last written (undefined: never written). */
  private generationRecorded: string | null | undefined = undefined;
  /** Other nodes' records as this node's looks last found them, and since when unchanged. */
  private readonly othersSeen = new Map<string, { readonly raw: string | null; readonly since: number }>();

  constructor(private readonly deps: ClusterSyncDeps) {}

  private get ownKey(): string {
    return `${clusterNodePrefix}${this.deps.nodeId}`;
  }

  /**
   * A look: applies what another node changed, records the generation applied, publishes what this node has.
   * Alone on the store nothing waits for its looks, so its record is written when missing (at the first look,
   * after a reset erased it) or when the generation it applied changed, and nothing is published (a node alone
   * answers with its own counters): one node on a database file does not commit four times a second for
   * nothing. Once another node's record appears, every look writes again.
   */
  async follow(): Promise<void> {
    const { settings } = this.deps;
    const generation = await settings.get(clusterGenerationKey);
    await this.deps.applyShared();
    const records = await this.forgetStoppedNodes(await settings.keysStartingWith(clusterNodePrefix));
    const recorded = records.includes(this.ownKey);
    // Erased (a reset, or taken for gone): what was published went with it.
    if (!recorded) this.lastPublished = null;
    const alone = records.every((key) => key === this.ownKey);
    if (alone && recorded && generation === this.generationRecorded) return;
    // Published before the record: a barrier that saw the record reads what was published with it.
    const published = alone ? null : (this.deps.publish?.() ?? null);
    if (published !== null && published !== this.lastPublished) {
      await settings.set(`${clusterPublishedPrefix}${this.deps.nodeId}`, published);
      this.lastPublished = published;
    }
    this.beat += 1;
    await settings.set(this.ownKey, `${generation ?? ""}|${this.beat}`);
    this.generationRecorded = generation;
  }

  /**
   * The node records that remain once those that have not moved for stoppedAfterLooks looks are removed (with
   * what their nodes published). Without this, the record of the process before a restart stayed for good, and
   * a server alone on its database wrote its record four times a second, a commit each, ever after.
   */
  private async forgetStoppedNodes(records: readonly string[]): Promise<string[]> {
    const now = this.deps.eventLoop.monotonicMs();
    const stoppedAfterMs = stoppedAfterLooks * this.deps.followEveryMs;
    const kept: string[] = [];
    for (const key of records) {
      if (key === this.ownKey) {
        kept.push(key);
        continue;
      }
      const raw = await this.deps.settings.get(key);
      const seen = this.othersSeen.get(key);
      if (!seen || seen.raw !== raw) {
        this.othersSeen.set(key, { raw, since: now });
        kept.push(key);
      } else if (now - seen.since < stoppedAfterMs) kept.push(key);
      else {
        this.othersSeen.delete(key);
        if (!(await this.removeNode(key, raw))) kept.push(key);
      }
    }
    for (const key of this.othersSeen.keys()) if (!records.includes(key)) this.othersSeen.delete(key);
    return kept;
  }

  /**
   * Removes a node's record if it still reads `raw` (null: it is gone already), and what the node published;
   * whether it was removed (false: the node wrote again meanwhile, so it lives).
   */
  private async removeNode(key: string, raw: string | null): Promise<boolean> {
    const { settings } = this.deps;
    if (raw !== null && !(await settings.deleteIf(key, raw))) return false;
    const publishedKey = `${clusterPublishedPrefix}${key.slice(clusterNodePrefix.length)}`;
    const published = await settings.get(publishedKey);
    if (published !== null) await settings.deleteIf(publishedKey, published);
    return true;
  }

  /**
   * The node stops (a clean stop): its records go, so a node that starts next on the store is alone at once.
   * A killed node's records are removed by the others' looks instead (forgetStoppedNodes).
   */
  async leave(): Promise<void> {
    await this.removeNode(this.ownKey, await this.deps.settings.get(this.ownKey));
    this.generationRecorded = undefined;
  }

  /**
   * Makes `change` to the shared state (moves the clock, resets the store), starts a new generation, and answers
   * what `change` answered once every other node that was live before it has applied the generation, or is gone,
   * or `timeoutMs` passed. The nodes are read before the change: a reset erases their records.
   */
  async changeShared<T>(change: () => Promise<T>, timeoutMs = 5000): Promise<T> {
    const others = await this.otherNodes();
    const answer = await change();
    await this.barrier(others, timeoutMs);
    return answer;
  }

  /** Starts a new generation and waits for `others` (their records as read before) to apply it. */
  private async barrier(others: Map<string, NodeEntry | null>, timeoutMs: number): Promise<void> {
    const { settings, eventLoop } = this.deps;
    const generation = this.deps.ids.randomHex(16);
    await settings.set(clusterGenerationKey, generation);
    await this.follow();
    const started = eventLoop.monotonicMs();
    const goneAfterMs = 3 * this.deps.followEveryMs;
    const waiting = new Map<string, { beat: number | null; movedAt: number }>(
      [...others].map(([key, entry]) => [key, { beat: entry?.beat ?? null, movedAt: started }]),
    );
    while (waiting.size > 0 && eventLoop.monotonicMs() - started < timeoutMs) {
      await eventLoop.sleep(Math.max(5, Math.floor(this.deps.followEveryMs / 10)));
      const now = eventLoop.monotonicMs();
      for (const [key, seen] of waiting) {
        const raw = await settings.get(key);
        const entry = entryOf(raw);
        if (entry?.generation === generation) {
          waiting.delete(key);
          continue;
        }
        if (entry && entry.beat !== seen.beat) {
          seen.beat = entry.beat;
          seen.movedAt = now;
        } else if (now - seen.movedAt >= goneAfterMs) {
          // Stopped looking: gone. Its records go (what it published would be counted forever), unless it wrote
          // again meanwhile.
          await this.removeNode(key, raw);
          waiting.delete(key);
        }
      }
    }
  }

  /** What every node published at its last look (this node's as it is now), by node id. */
  async published(): Promise<Map<string, string>> {
    const { settings } = this.deps;
    const found = new Map<string, string>();
    for (const key of await settings.keysStartingWith(clusterPublishedPrefix)) {
      const nodeId = key.slice(clusterPublishedPrefix.length);
      const value = await settings.get(key);
      if (value !== null && nodeId !== this.deps.nodeId) found.set(nodeId, value);
    }
    const own = this.deps.publish?.() ?? null;
    if (own !== null) found.set(this.deps.nodeId, own);
    return found;
  }

  /** The records of the other nodes, by key. */
  private async otherNodes(): Promise<Map<string, NodeEntry | null>> {
    const { settings } = this.deps;
    const others = new Map<string, NodeEntry | null>();
    for (const key of await settings.keysStartingWith(clusterNodePrefix))
      if (key !== this.ownKey) others.set(key, entryOf(await settings.get(key)));
    return others;
  }
}
