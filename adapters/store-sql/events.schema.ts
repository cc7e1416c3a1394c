import type { Verdict } from "../../core/ports/index.ts";
import type { VisitorIdSource } from "../../core/visitors/index.ts";
import type { ColumnKit, ColumnTypes } from "./sql-columns.ts";

/**
 * COL-16, DEC-COL-08: collected events, shaped for appends. `seq` is a key the database gives (SQLite's
 * AUTOINCREMENT, a PostgreSQL sequence), so sequence numbers grow and are never reused, even after deletions,
 * and an append lands on the last pages of the table and of its two indexes (received time, trace id). There is
 * no index by visitor on the commit path: `event_visitors` (below) is filled off it. In PostgreSQL every append takes the events
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
      c.index("events_received_idx", [table.account, table.profile, table.receivedAt]),
      c.index("events_trace_idx", [table.traceId]),
    ],
  );
}

/**
 * How many sequence numbers share a bucket of `event_visitors`: 4,096 events' entries fill a few pages, so the
 * copy of a batch of events writes those few pages instead of a page an event (bench/FINDINGS.md).
 */
export const eventBucketBits = 12;

/**
 * The per-visitor index of `events`, built off the commit path: the events' (account, profile, visitor, seq)
 * copied in bulk, in sequence order, up to a mark (the settings entry `visitorIndexMarkKey`) that only grows.
 * Keyed by the bucket of the sequence number first (`seq >> eventBucketBits`), so a copy lands on the pages of
 * the newest bucket; a read by visitor seeks once per bucket and scans the events past the mark. In SQLite a
 * WITHOUT ROWID table (libSQL migration 0016: drizzle's schema cannot say it; a test checks it). It holds visitor
 * ids, so a visitor's deletion removes its rows with its events, in the same commit.
 */
export function eventVisitorsTable<D extends ColumnTypes>(c: ColumnKit<D>) {
  return c.table(
    "event_visitors",
    {
      bucket: c.int64("bucket"),
      account: c.text("account"),
      profile: c.text("profile"),
      visitorId: c.text("visitor_id"),
      seq: c.int64("seq"),
    },
    (table) => [c.primaryKey([table.bucket, table.account, table.profile, table.visitorId, table.seq])],
  );
}

/** The settings entry of the last sequence number copied to `event_visitors`: every event up to it is there. */
export const visitorIndexMarkKey = "events.visitor-index";
