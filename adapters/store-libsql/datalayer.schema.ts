import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * DEC-DLE-05..09: one row per data layer: whether it exists, its newest change, and what is served.
 * (No foreign key to profiles: replacing a profile's configuration must never touch its data layers.)
 */
export const dataLayers = sqliteTable(
  "data_layers",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    dlId: text("dl_id").notNull(),
    /** DEC-DLE-05: the newest accepted change is an upload or update. */
    present: integer("present", { mode: "boolean" }).notNull(),
    lastSeq: integer("last_seq").notNull(),
    lastDueAt: integer("last_due_at").notNull(),
    settledSeq: integer("settled_seq").notNull().default(0),
    /** DEC-DLE-07: the JSON served, null when nothing is. */
    servedBody: text("served_body"),
    servedSeq: integer("served_seq"),
    servedAt: integer("served_at"),
  },
  (table) => [
    primaryKey({ columns: [table.account, table.profile, table.dlId] }),
    // DEC-DLE-09: the list reads the existing names of one profile in binary order.
    index("data_layers_list_idx").on(table.account, table.profile, table.present, table.dlId),
  ],
);

/**
 * DLE-07, DEC-DLE-05, DEC-DLE-06: the accepted changes, numbered per data layer. The primary key makes two
 * writers that both decided "the next is seq n" collide, so only one of them is recorded.
 */
export const dataLayerChanges = sqliteTable(
  "data_layer_changes",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    dlId: text("dl_id").notNull(),
    seq: integer("seq").notNull(),
    kind: text("kind", { enum: ["upload", "update", "delete"] }).notNull(),
    body: text("body"),
    state: text("state", { enum: ["pending", "completed", "failed"] }).notNull(),
    acceptedAt: integer("accepted_at").notNull(),
    dueAt: integer("due_at").notNull(),
    runAt: integer("run_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    settledAt: integer("settled_at"),
  },
  (table) => [
    primaryKey({ columns: [table.account, table.profile, table.dlId, table.seq] }),
    // The publisher looks for pending changes by when they may run.
    index("data_layer_changes_pending_idx").on(table.state, table.runAt),
  ],
);
