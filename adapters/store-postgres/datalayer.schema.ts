import { boolean, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { millis } from "./columns.ts";

/** DEC-DLE-05..09: one row per data layer name of a profile, as in the libSQL store. */
export const dataLayers = pgTable(
  "data_layers",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    dlId: text("dl_id").notNull(),
    present: boolean("present").notNull(),
    lastSeq: millis("last_seq").notNull(),
    lastDueAt: millis("last_due_at").notNull(),
    settledSeq: millis("settled_seq").notNull().default(0),
    servedBody: text("served_body"),
    servedSeq: millis("served_seq"),
    servedAt: millis("served_at"),
  },
  (table) => [
    primaryKey({ columns: [table.account, table.profile, table.dlId] }),
    // DEC-DLE-09: the list reads the existing names of one profile in binary order (ORDER BY … COLLATE "C").
    index("data_layers_list_idx").on(table.account, table.profile, table.present, table.dlId),
  ],
);

export const dataLayerChanges = pgTable(
  "data_layer_changes",
  {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    dlId: text("dl_id").notNull(),
    seq: millis("seq").notNull(),
    kind: text("kind", { enum: ["upload", "update", "delete"] }).notNull(),
    body: text("body"),
    state: text("state", { enum: ["pending", "completed", "failed"] }).notNull(),
    acceptedAt: millis("accepted_at").notNull(),
    dueAt: millis("due_at").notNull(),
    runAt: millis("run_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    settledAt: millis("settled_at"),
  },
  (table) => [
    primaryKey({ columns: [table.account, table.profile, table.dlId, table.seq] }),
    index("data_layer_changes_pending_idx").on(table.state, table.runAt),
  ],
);
