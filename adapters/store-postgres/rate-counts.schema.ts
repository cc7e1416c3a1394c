import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * DEC-COL-07 across nodes (RateCountStore): the events each node was offered and admitted per account in each
 * second of the virtual clock (64-bit: the clock may be set far ahead). Each node writes its own rows, so nodes
 * never wait for each other's locks; rows of past seconds are deleted as nodes exchange, so the table holds a
 * few seconds.
 */
export const collectRateCounts = pgTable(
  "collect_rate_counts",
  {
    node: text("node").notNull(),
    account: text("account").notNull(),
    second: bigint("second", { mode: "number" }).notNull(),
    offered: integer("offered").notNull(),
    admitted: integer("admitted").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.node, table.account, table.second] }),
    index("collect_rate_counts_second_idx").on(table.second),
  ],
);
