import type { ColumnKit, ColumnTypes } from "./sql-columns.ts";

/**
 * DEC-COL-07 across processes and nodes (RateCountStore): the events each process was offered and admitted per
 * account in each second of the virtual clock (64-bit: the clock may be set far ahead). Each process writes its
 * own rows, so none waits for another's locks; rows of past seconds are deleted as processes exchange, so the
 * table holds a few seconds.
 */
export function rateCountsTable<D extends ColumnTypes>(c: ColumnKit<D>) {
  return c.table(
    "collect_rate_counts",
    {
      node: c.text("node"),
      account: c.text("account"),
      second: c.int64("second"),
      offered: c.int("offered"),
      admitted: c.int("admitted"),
    },
    (table) => [
      c.primaryKey([table.node, table.account, table.second]),
      c.index("collect_rate_counts_second_idx", [table.second]),
    ],
  );
}
