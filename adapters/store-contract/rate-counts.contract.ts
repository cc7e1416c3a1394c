/**
 * The collection rate counts part of the store contract (COL-15, DEC-COL-07 across nodes: RateCountStore), run
 * against every store implementation. The nodes here are names in one store, as nodes on one database are.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { RateCount, RateCountExchange, Stores } from "../../core/ports/index.ts";

/** Answers sorted by account, then second, so that a store's order does not matter. */
function sorted(counts: readonly RateCount[]): RateCount[] {
  return [...counts].sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : a.second - b.second));
}

const count = (account: string, second: number, offered: number, admitted: number): RateCount => ({
  account,
  second,
  offered,
  admitted,
});

export function describeRateCountStoreContract(name: string, open: () => Promise<Stores>): void {
  describe(`${name}: collection rate counts (COL-15, DEC-COL-07 across nodes)`, () => {
    let stores: Stores;
    beforeEach(async () => {
      stores = await open();
    });
    afterEach(async () => {
      await stores.close();
    });

    /** `node`'s exchange of `counts`, asking for `accounts` in `fromSecond`..`toSecond`; the answer sorted. */
    async function exchange(
      node: string,
      counts: readonly RateCount[],
      accounts: readonly string[],
      fromSecond: number,
      toSecond = fromSecond + 1,
    ): Promise<RateCount[]> {
      const asked: RateCountExchange = { node, counts, accounts, fromSecond, toSecond };
      return sorted(await stores.rateCounts.exchange(asked));
    }

    test("[DEC-COL-07] an exchange answers the other nodes' counts, summed by account and second, never the node's own", async () => {
      expect(await exchange("a", [count("acme", 100, 40, 30), count("acme", 101, 9, 5)], ["acme"], 100)).toEqual([]);
      expect(await exchange("b", [count("acme", 101, 7, 6), count("globex", 101, 3, 3)], ["acme"], 100)).toEqual([
        count("acme", 100, 40, 30),
        count("acme", 101, 9, 5),
      ]);
      expect(await exchange("c", [count("acme", 101, 1, 1)], ["acme", "globex"], 100)).toEqual([
        count("acme", 100, 40, 30),
        count("acme", 101, 16, 11),
        count("globex", 101, 3, 3),
      ]);
    });

    test("[DEC-COL-07] a node's count given again replaces its earlier one: counts are whole, never added up", async () => {
      await exchange("a", [count("acme", 100, 5, 3)], ["acme"], 99);
      await exchange("a", [count("acme", 100, 8, 4)], ["acme"], 99);
      await exchange("a", [count("acme", 100, 8, 4)], ["acme"], 99);
      expect(await exchange("b", [], ["acme"], 99)).toEqual([count("acme", 100, 8, 4)]);
    });

    test("only the accounts and the seconds asked for are answered", async () => {
      await exchange(
        "a",
        [count("acme", 99, 1, 1), count("acme", 100, 2, 2), count("acme", 101, 3, 3), count("globex", 100, 4, 4)],
        ["acme", "globex"],
        100,
      );
      expect(await exchange("b", [], ["acme"], 100, 100)).toEqual([count("acme", 100, 2, 2)]);
      expect(await exchange("b", [], ["initech"], 99)).toEqual([]);
      expect(await exchange("b", [], [], 99)).toEqual([]);
    });

    test("counts more than a second before the seconds asked, or after them, go, every node's (bounded growth)", async () => {
      await exchange("a", [count("acme", 98, 1, 1), count("acme", 99, 2, 2)], ["acme"], 98);
      await exchange("b", [count("acme", 99, 3, 3)], ["acme"], 98);
      // Asking for 100..101 keeps 99..102.
      await exchange("c", [], ["acme"], 100);
      expect(await exchange("d", [], ["acme"], 98)).toEqual([count("acme", 99, 5, 5)]);
      // Counts ahead, as a clock set back leaves them.
      await exchange("a", [count("acme", 102, 4, 4), count("acme", 103, 5, 5)], ["acme"], 102);
      await exchange("c", [], ["acme"], 100);
      expect(await exchange("d", [], ["acme"], 102)).toEqual([count("acme", 102, 4, 4)]);
      // At 110..111 none of them is kept.
      await exchange("c", [], ["acme"], 110);
      expect(await exchange("d", [], ["acme"], 98, 103)).toEqual([]);
    });

    test("an exchange takes many accounts at once, more than one statement holds", async () => {
      const accounts = Array.from({ length: 2500 }, (_, index) => `account-${String(index).padStart(4, "0")}`);
      await exchange(
        "a",
        accounts.flatMap((account, index) => [count(account, 100, index + 2, 1), count(account, 101, 1, index)]),
        accounts,
        100,
      );
      const answered = await exchange("b", [], accounts, 100);
      expect(answered).toHaveLength(5000);
      expect(answered.slice(0, 2)).toEqual([count("account-0000", 100, 2, 1), count("account-0000", 101, 1, 0)]);
      expect(answered.at(-1)).toEqual(count("account-2499", 101, 1, 2499));
    });

    test("eraseAll removes every count", async () => {
      await exchange("a", [count("acme", 100, 5, 5)], ["acme"], 100);
      await stores.eraseAll({ keepSettings: [] });
      expect(await exchange("b", [], ["acme"], 100)).toEqual([]);
    });

    test("seconds far ahead (a virtual clock set to the year 2500) are kept and answered as any other", async () => {
      const second = Math.floor(Date.UTC(2500, 0, 1) / 1000);
      await exchange("a", [count("acme", second, 120, 100)], ["acme"], second - 1, second);
      expect(await exchange("b", [], ["acme"], second - 1, second)).toEqual([count("acme", second, 120, 100)]);
    });
  });
}
