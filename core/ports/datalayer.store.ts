/** DLE-*, DEC-DLE-05: which data layer: the account, profile and dl_id of its path. */
export interface DataLayerKey {
  readonly account: string;
  readonly profile: string;
  readonly dlId: string;
}

export type DataLayerChangeKind = "upload" | "update" | "delete";

/** DLE-04, DLE-07: the states of a change (answered in lower case). */
export type DataLayerChangeState = "pending" | "completed" | "failed";

/** One accepted change of a data layer (DLE-07, DEC-DLE-05). */
export interface DataLayerChange {
  readonly key: DataLayerKey;
  /** 1, 2, 3, ... per data layer, in the order the changes were accepted. */
  readonly seq: number;
  readonly kind: DataLayerChangeKind;
  /** The JSON text of an upload or update, as sent; null for a delete. */
  readonly body: string | null;
  readonly state: DataLayerChangeState;
  readonly acceptedAt: number;
  /** When it is published (DEC-DLE-06); never before the previous change of the same data layer is. */
  readonly dueAt: number;
  /** When the publisher may try it next: dueAt, and later after a failed try. */
  readonly runAt: number;
  /** Failed tries so far. */
  readonly attempts: number;
  /** When it became completed or failed; null while pending. */
  readonly settledAt: number | null;
}

/** What is served for a data layer (DEC-DLE-07): the content of its last completed upload or update. */
export interface ServedDataLayer {
  readonly body: string;
  /** seq of the change that published it. */
  readonly seq: number;
  readonly publishedAt: number;
}

/** What the store keeps for a data layer besides its changes. */
export interface DataLayerRecord {
  readonly key: DataLayerKey;
  /** DEC-DLE-05: the newest accepted change is an upload or an update (completed or not). */
  readonly exists: boolean;
  /** seq of the newest accepted change. */
  readonly lastSeq: number;
  /** dueAt of the newest accepted change. */
  readonly lastDueAt: number;
  /** seq of the newest settled change (0 when none is). */
  readonly settledSeq: number;
  readonly served: ServedDataLayer | null;
}

/**
 * How many characters (code points) of a served body `DataLayerStore.list` answers: enough for a preview of
 * 16 KiB of text, so that listing a thousand data layers of 1 MiB each does not read a gigabyte.
 */
export const servedHeadCharacters = 16_384;

/** What is served for a listed data layer: its size and its first `servedHeadCharacters` characters. */
export interface ServedDataLayerHead {
  /** seq of the change that published it. */
  readonly seq: number;
  readonly publishedAt: number;
  /** The size of the whole body, in UTF-8 bytes. */
  readonly bytes: number;
  /** The body's first `servedHeadCharacters` characters (the whole body when it is no longer). */
  readonly head: string;
}

/** A data layer as `DataLayerStore.list` answers it: its record and newest change, without their bodies. */
export interface ListedDataLayer {
  readonly layer: Omit<DataLayerRecord, "served">;
  /** The newest accepted change, without its body. */
  readonly newest: Omit<DataLayerChange, "body">;
  readonly served: ServedDataLayerHead | null;
}

/** One row of a store's list query: a data layer's record joined with its newest change and its served head. */
export interface ListedDataLayerRow {
  readonly dlId: string;
  readonly present: boolean;
  readonly lastSeq: number;
  readonly lastDueAt: number;
  readonly settledSeq: number;
  readonly servedSeq: number | null;
  readonly servedAt: number | null;
  readonly servedBytes: number | string | null;
  readonly servedHead: string | null;
  readonly kind: DataLayerChangeKind;
  readonly state: DataLayerChangeState;
  readonly acceptedAt: number;
  readonly dueAt: number;
  readonly runAt: number;
  readonly attempts: number;
  readonly settledAt: number | null;
}

/** DataLayerStore.list for a store whose query answers ListedDataLayerRow: the same listing from every store. */
export function listedDataLayerOf(account: string, profile: string, row: ListedDataLayerRow): ListedDataLayer {
  const key = { account, profile, dlId: row.dlId };
  return {
    layer: { key, exists: row.present, lastSeq: row.lastSeq, lastDueAt: row.lastDueAt, settledSeq: row.settledSeq },
    newest: {
      key,
      seq: row.lastSeq,
      kind: row.kind,
      state: row.state,
      acceptedAt: row.acceptedAt,
      dueAt: row.dueAt,
      runAt: row.runAt,
      attempts: row.attempts,
      settledAt: row.settledAt,
    },
    served:
      row.servedHead === null
        ? null
        : {
            seq: row.servedSeq ?? 0,
            publishedAt: row.servedAt ?? 0,
            bytes: Number(row.servedBytes),
            head: row.servedHead,
          },
  };
}

/** A pending change that became completed (serving `serve`: the new content, or null to stop serving) or failed. */
export type ChangeSettlement =
  | {
      readonly key: DataLayerKey;
      readonly seq: number;
      readonly state: "completed";
      readonly settledAt: number;
      readonly attempts: number;
      readonly serve: string | null;
    }
  | {
      readonly key: DataLayerKey;
      readonly seq: number;
      readonly state: "failed";
      readonly settledAt: number;
      readonly attempts: number;
    };

/**
 * The hosted data layers (DLE-*, DEC-DLE-05..09): per data layer, its summary and its changes in order.
 * Changes are durable once `append` resolves true: a pending change survives a restart and completes after it.
 */
export interface DataLayerStore {
  /** The data layer and its newest change, read together; null when no change was ever accepted for it. */
  read(key: DataLayerKey): Promise<{ readonly layer: DataLayerRecord; readonly newest: DataLayerChange } | null>;
  /**
   * Records `change` (its seq must be the layer's lastSeq + 1; 1 for a new layer) and makes it the newest,
   * with the layer's `exists` set as given, if no other change got in since the layer was read. Resolves
   * false, changing nothing, when one did (read again and decide again).
   */
  append(change: DataLayerChange, exists: boolean): Promise<boolean>;
  /** DEC-DLE-09: the dl_ids of the profile's existing data layers in code-unit order, at most `limit`. */
  listExisting(account: string, profile: string, limit: number): Promise<string[]>;
  /**
   * Every data layer of the profile that has a change (existing or deleted), with its newest change and the
   * head of what it serves, by dl_id in code-unit order, at most `limit`.
   */
  list(account: string, profile: string, limit: number): Promise<ListedDataLayer[]>;
  /**
   * DEC-DLE-05: pending changes with runAt <= now that have no earlier pending change of the same data
   * layer (so each layer's changes are applied in order), earliest runAt first, at most `limit`.
   */
  due(now: number, limit: number): Promise<DataLayerChange[]>;
  /** The earliest runAt of the changes `due` could answer at some time, or null when none is pending. */
  nextRunAt(): Promise<number | null>;
  /**
   * Settles a pending change and, when it completed, sets what is served; older changes of the layer are
   * no longer needed and may be dropped. Resolves false, changing nothing, if the change is not pending.
   */
  settle(settlement: ChangeSettlement): Promise<boolean>;
  /** A failed try of a pending change: counts it and moves its next try to `runAt`. */
  retry(key: DataLayerKey, seq: number, attempts: number, runAt: number): Promise<void>;
  /** DEC-DLE-07: what is served for the data layer, or null. */
  served(key: DataLayerKey): Promise<ServedDataLayer | null>;
}
