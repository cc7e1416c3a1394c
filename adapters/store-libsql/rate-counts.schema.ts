import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * DEC-COL-07 across processes (RateCountStore): the events each process was offered and admitted per account in
 * each second of the virtual clock. Each process writes its own rows; rows of past seconds are deleted as
 * processes exchange, so the table holds a few seconds.
 */
export const collectRateCounts = sqliteTable(
  "collect_rate_counts",
  {
    node: text("node").notNull(),
    account: text("account").notNull(),
    second: integer("second").notNull(),
    offered: integer("offered").notNull(),
    admitted: integer("admitted").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.node, table.account, table.second] }),
    index("collect_rate_counts_second_idx").on(table.second),
  ],
);
