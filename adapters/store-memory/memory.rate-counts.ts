import type { RateCount, RateCountExchange, RateCountStore } from "../../core/ports/index.ts";

interface NodeCount extends RateCount {
  readonly node: string;
}

function keyOf(node: string, account: string, second: number): string {
  return `${node}\u0000${account}\u0000${second}`;
}

/**
 * The reference RateCountStore: every node's counts by node, account and second. Nodes in one process (tests)
 * share it as nodes on a database share a table.
 */
export class MemoryRateCountStore implements RateCountStore {
  private readonly counts = new Map<string, NodeCount>();

  constructor(private readonly isClosed: () => boolean = () => false) {}

  /** Removes every count at once, without awaiting (Stores.eraseAll). */
  eraseAll(): void {
    this.counts.clear();
  }

  async exchange(exchange: RateCountExchange): Promise<RateCount[]> {
    if (this.isClosed()) throw new Error("store is closed");
    const { node, fromSecond, toSecond } = exchange;
    for (const { account, second, offered, admitted } of exchange.counts)
      this.counts.set(keyOf(node, account, second), { node, account, second, offered, admitted });
    const asked = new Set(exchange.accounts);
    const sums = new Map<string, { account: string; second: number; offered: number; admitted: number }>();
    for (const [key, count] of this.counts) {
      if (count.second < fromSecond - 1 || count.second > toSecond + 1) {
        this.counts.delete(key);
        continue;
      }
      if (count.node === node || !asked.has(count.account) || count.second < fromSecond || count.second > toSecond)
        continue;
      const sumKey = `${count.account}\u0000${count.second}`;
      const sum = sums.get(sumKey) ?? { account: count.account, second: count.second, offered: 0, admitted: 0 };
      sum.offered += count.offered;
      sum.admitted += count.admitted;
      sums.set(sumKey, sum);
    }
    return [...sums.values()];
  }
}
