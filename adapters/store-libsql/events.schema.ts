import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { Verdict } from "../../core/ports/index.ts";
import type { VisitorIdSource } from "../../core/visitors/index.ts";

/**
 * COL-16, DEC-COL-08: collected events. `seq` is an AUTOINCREMENT key, so sequence numbers grow in commit
 * order and are never reused, even after deletions; per-visitor processing reads them in that order through
 * `events_visitor_idx`. No foreign key to profiles: the hot path pays for no lookup, and an event outlives
 * a profile's configuration. `data` is the JSON of every stored parameter. `verdict` is the tracking plan's
 * (valid, invalid or none) and `violations` the JSON of an invalid event's violations (null otherwise).
 */
export const events = sqliteTable(
  "events",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    visitorId: text("visitor_id").notNull(),
    visitorIdSource: text("visitor_id_source").$type<VisitorIdSource>().notNull(),
    thirdPartyVisitorId: text("third_party_visitor_id"),
    firstPartyVisitorId: text("first_party_visitor_id"),
    event: text("event"),
    datasource: text("datasource"),
    traceId: text("trace_id"),
    receivedAt: integer("received_at").notNull(),
    data: text("data").notNull(),
    verdict: text("verdict").$type<Verdict>().notNull().default("none"),
    violations: text("violations"),
  },
  (table) => [
    index("events_visitor_idx").on(table.account, table.profile, table.visitorId, table.seq),
    index("events_received_idx").on(table.account, table.profile, table.receivedAt),
    index("events_trace_idx").on(table.traceId),
  ],
);
