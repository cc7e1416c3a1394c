/**
 * COL-15, DEC-COL-07 across nodes: how many events each node was offered and admitted per account in each second
 * of the virtual clock, so that the nodes sharing a store keep one rate limit between them
 * (core/collect/rate-exchange.use-cases.ts). A node writes only its own counts, whole (never an increment):
 * writing one again changes nothing, and no two nodes write one record.
 */
export interface RateCount {
  readonly account: string;
  /** A second of the virtual clock: epoch milliseconds divided by 1000, rounded down. */
  readonly second: number;
  /** The events that reached the account's limit, admitted or not. */
  readonly offered: number;
  readonly admitted: number;
}

/** One exchange of a node with the store: its counts, and the accounts whose other counts it wants back. */
export interface RateCountExchange {
  /** The writing node, unique among the processes on the store for as long as it runs. */
  readonly node: string;
  /** This node's counts as they stand: each replaces the node's count of that account and second. */
  readonly counts: readonly RateCount[];
  /** The accounts whose other nodes' counts are answered. */
  readonly accounts: readonly string[];
  /** The seconds answered, `fromSecond` to `toSecond` (both included). */
  readonly fromSecond: number;
  readonly toSecond: number;
}

export interface RateCountStore {
  /**
   * Writes the node's counts, then answers the sums of every other node's counts for the accounts and seconds
   * asked: one entry per account and second that any other node counted, in no particular order. The counts of
   * every node for seconds before `fromSecond - 1` or after `toSecond + 1` go: they are past, or were left ahead
   * of a virtual clock set back, so what is kept is a few seconds of the accounts being collected for. Stores
   * that several processes share answer in one round trip; Stores.eraseAll removes every count.
   */
  exchange(exchange: RateCountExchange): Promise<RateCount[]>;
}
