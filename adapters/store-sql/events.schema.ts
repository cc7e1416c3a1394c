import type { Verdict } from "../../core/ports/index.ts";
import type { VisitorIdSource } from "../../core/visitors/index.ts";
import type { ColumnKit, ColumnTypes } from "./sql-columns.ts";

/**
 * COL-16, DEC-COL-08: collected events. `seq` is a key the database gives (SQLite's AUTOINCREMENT, a
 * PostgreSQL sequence), so sequence numbers grow and are never reused, even after deletions; per-visitor
 * processing reads them in that order through `events_visitor_idx`. In PostgreSQL every append takes the events
 * lock (a transaction-level advisory lock) before it inserts, so that sequence numbers become visible in the
 * order they were given, whichever node appends. No foreign key to profiles: the hot path pays for no lookup,
 * and an event outlives a profile's configuration. `data` is the JSON text of every stored parameter (text, so
 * its order survives). `verdict` is the tracking plan's (valid, invalid or none) and `violations` the JSON of an
 * invalid event's violations (null otherwise).
 */
export function eventsTable<D extends ColumnTypes>(c: ColumnKit<D>) {
  return c.table(
    "events",
    {
      seq: c.serialKey("seq"),
      account: c.text("account"),
      profile: c.text("profile"),
      visitorId: c.text("visitor_id"),
      visitorIdSource: c.text<VisitorIdSource>("visitor_id_source"),
      thirdPartyVisitorId: c.textOrNull("third_party_visitor_id"),
      firstPartyVisitorId: c.textOrNull("first_party_visitor_id"),
      event: c.textOrNull("event"),
      datasource: c.textOrNull("datasource"),
      traceId: c.textOrNull("trace_id"),
      receivedAt: c.int64("received_at"),
      data: c.text("data"),
      verdict: c.textWithDefault<Verdict>("verdict", "none"),
      violations: c.textOrNull("violations"),
    },
    (table) => [
      c.index("events_visitor_idx", [table.account, table.profile, table.visitorId, table.seq]),
      c.index("events_received_idx", [table.account, table.profile, table.receivedAt]),
      c.index("events_trace_idx", [table.traceId]),
    ],
  );
}
