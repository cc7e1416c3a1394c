import type { ColumnKit, ColumnTypes } from "./sql-columns.ts";

export function datalayerTables<D extends ColumnTypes>(c: ColumnKit<D>) {
  /**
   * DEC-DLE-05..09: one row per data layer: whether it exists, its newest change, and what is served.
   * (No foreign key to profiles: replacing a profile's configuration must never touch its data layers.)
   */
  const dataLayers = c.table(
    "data_layers",
    {
      account: c.text("account"),
      profile: c.text("profile"),
      dlId: c.text("dl_id"),
      /** DEC-DLE-05: the newest accepted change is an upload or update. */
      present: c.bool("present"),
      lastSeq: c.int64("last_seq"),
      lastDueAt: c.int64("last_due_at"),
      settledSeq: c.int64From0("settled_seq"),
      /** DEC-DLE-07: the JSON served, null when nothing is. */
      servedBody: c.textOrNull("served_body"),
      servedSeq: c.int64OrNull("served_seq"),
      servedAt: c.int64OrNull("served_at"),
    },
    (table) => [
      c.primaryKey([table.account, table.profile, table.dlId]),
      // DEC-DLE-09: the list reads the existing names of one profile in binary order.
      c.index("data_layers_list_idx", [table.account, table.profile, table.present, table.dlId]),
    ],
  );

  /**
   * DLE-07, DEC-DLE-05, DEC-DLE-06: the accepted changes, numbered per data layer. The primary key makes two
   * writers that both decided "the next is seq n" collide, so only one of them is recorded.
   */
  const dataLayerChanges = c.table(
    "data_layer_changes",
    {
      account: c.text("account"),
      profile: c.text("profile"),
      dlId: c.text("dl_id"),
      seq: c.int64("seq"),
      kind: c.text<"upload" | "update" | "delete">("kind"),
      body: c.textOrNull("body"),
      state: c.text<"pending" | "completed" | "failed">("state"),
      acceptedAt: c.int64("accepted_at"),
      dueAt: c.int64("due_at"),
      runAt: c.int64("run_at"),
      attempts: c.intFrom0("attempts"),
      settledAt: c.int64OrNull("settled_at"),
    },
    (table) => [
      c.primaryKey([table.account, table.profile, table.dlId, table.seq]),
      // The publisher looks for pending changes by when they may run.
      c.index("data_layer_changes_pending_idx", [table.state, table.runAt]),
    ],
  );

  return { dataLayers, dataLayerChanges };
}
