import type {
  ChangeSettlement,
  DataLayerChange,
  DataLayerKey,
  DataLayerRecord,
  DataLayerStore,
  ListedDataLayer,
  ServedDataLayer,
} from "../../core/ports/index.ts";
import { servedHeadCharacters } from "../../core/ports/index.ts";

interface Entry {
  layer: DataLayerRecord;
  /** The changes still kept, by seq. */
  changes: Map<number, DataLayerChange>;
}

function keyOf(key: DataLayerKey): string {
  return `${key.account}\u0000${key.profile}\u0000${key.dlId}`;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first `count` characters (code points) of `text`, as the SQL stores' substr and left count them. */
function firstCharacters(text: string, count: number): string {
  let end = 0;
  let taken = 0;
  for (const character of text) {
    if (taken === count) break;
    end += character.length;
    taken += 1;
  }
  return text.slice(0, end);
}

function listed(entry: Entry): ListedDataLayer | null {
  const newest = entry.changes.get(entry.layer.lastSeq);
  if (!newest) return null;
  const { served, ...layer } = entry.layer;
  const { body: _body, ...change } = newest;
  return structuredClone({
    layer,
    newest: change,
    served: served
      ? {
          seq: served.seq,
          publishedAt: served.publishedAt,
          bytes: new TextEncoder().encode(served.body).byteLength,
          head: firstCharacters(served.body, servedHeadCharacters),
        }
      : null,
  });
}

/** The hosted data layers in memory: the reference implementation of DataLayerStore. */
export class MemoryDataLayerStore implements DataLayerStore {
  private readonly entries = new Map<string, Entry>();

  /** Removes every record at once, without awaiting (POST /admin/reset, Stores.eraseAll); answers how many there were. */
  eraseAll(): number {
    const count = this.entries.size;
    this.entries.clear();
    return count;
  }

  async read(key: DataLayerKey): Promise<{ layer: DataLayerRecord; newest: DataLayerChange } | null> {
    const entry = this.entries.get(keyOf(key));
    const newest = entry?.changes.get(entry.layer.lastSeq);
    return entry && newest ? structuredClone({ layer: entry.layer, newest }) : null;
  }

  async append(change: DataLayerChange, exists: boolean): Promise<boolean> {
    const id = keyOf(change.key);
    const entry = this.entries.get(id);
    if ((entry?.layer.lastSeq ?? 0) !== change.seq - 1) return false;
    const layer: DataLayerRecord = {
      key: structuredClone(change.key),
      exists,
      lastSeq: change.seq,
      lastDueAt: change.dueAt,
      settledSeq: entry?.layer.settledSeq ?? 0,
      served: entry?.layer.served ?? null,
    };
    const changes = entry?.changes ?? new Map<number, DataLayerChange>();
    changes.set(change.seq, structuredClone(change));
    this.entries.set(id, { layer, changes });
    return true;
  }

  async listExisting(account: string, profile: string, limit: number): Promise<string[]> {
    const names: string[] = [];
    for (const { layer } of this.entries.values()) {
      if (layer.exists && layer.key.account === account && layer.key.profile === profile) names.push(layer.key.dlId);
    }
    return names.sort(compareCodeUnits).slice(0, Math.max(0, limit));
  }

  async list(account: string, profile: string, limit: number): Promise<ListedDataLayer[]> {
    return [...this.entries.values()]
      .filter(({ layer }) => layer.key.account === account && layer.key.profile === profile)
      .sort((a, b) => compareCodeUnits(a.layer.key.dlId, b.layer.key.dlId))
      .slice(0, Math.max(0, limit))
      .flatMap((entry) => listed(entry) ?? []);
  }

  async due(now: number, limit: number): Promise<DataLayerChange[]> {
    return this.heads()
      .filter((change) => change.runAt <= now)
      .sort((a, b) => a.runAt - b.runAt)
      .slice(0, Math.max(0, limit))
      .map((change) => structuredClone(change));
  }

  async nextRunAt(): Promise<number | null> {
    let next: number | null = null;
    for (const change of this.heads()) if (next === null || change.runAt < next) next = change.runAt;
    return next;
  }

  async settle(settlement: ChangeSettlement): Promise<boolean> {
    const entry = this.entries.get(keyOf(settlement.key));
    const change = entry?.changes.get(settlement.seq);
    if (!entry || !change || change.state !== "pending") return false;
    entry.changes.set(settlement.seq, {
      ...change,
      state: settlement.state,
      settledAt: settlement.settledAt,
      attempts: settlement.attempts,
    });
    let served: ServedDataLayer | null = entry.layer.served;
    if (settlement.state === "completed") {
      served =
        settlement.serve === null
          ? null
          : { body: settlement.serve, seq: settlement.seq, publishedAt: settlement.settledAt };
    }
    entry.layer = { ...entry.layer, settledSeq: Math.max(entry.layer.settledSeq, settlement.seq), served };
    for (const seq of entry.changes.keys()) if (seq < settlement.seq) entry.changes.delete(seq);
    return true;
  }

  async retry(key: DataLayerKey, seq: number, attempts: number, runAt: number): Promise<void> {
    const entry = this.entries.get(keyOf(key));
    const change = entry?.changes.get(seq);
    if (entry && change && change.state === "pending") entry.changes.set(seq, { ...change, attempts, runAt });
  }

  async served(key: DataLayerKey): Promise<ServedDataLayer | null> {
    const served = this.entries.get(keyOf(key))?.layer.served;
    return served ? { ...served } : null;
  }

  /** The oldest pending change of each data layer. */
  private heads(): DataLayerChange[] {
    const heads: DataLayerChange[] = [];
    for (const entry of this.entries.values()) {
      let head: DataLayerChange | null = null;
      for (const change of entry.changes.values()) {
        if (change.state === "pending" && (head === null || change.seq < head.seq)) head = change;
      }
      if (head) heads.push(head);
    }
    return heads;
  }
}
