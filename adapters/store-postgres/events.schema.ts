import { bigserial, index, pgTable, text } from "drizzle-orm/pg-core";
import type { Verdict } from "../../core/ports/index.ts";
import type { VisitorIdSource } from "../../core/visitors/index.ts";
import { millis } from "./columns.ts";

/**
 * COL-16, DEC-COL-08: collected events. A sequence gives `seq`, and every append takes the events lock
 * (a transaction-level advisory lock) before it inserts, so that sequence numbers become visible in the order
 * they were given, whichever node appends: a reader that has seen `seq` n never sees a smaller one appear
 * later. `data` is the JSON text of every stored parameter (kept as text so its order survives). `verdict` is
 * the tracking plan's (valid, invalid or none) and `violations` the JSON of an invalid event's violations (null
 * otherwise).
 */
export const events = pgTable(
  "events",
  {
    seq: bigserial("seq", { mode: "number" }).primaryKey(),
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    visitorId: text("visitor_id").notNull(),
    visitorIdSource: text("visitor_id_source").$type<VisitorIdSource>().notNull(),
    thirdPartyVisitorId: text("third_party_visitor_id"),
    firstPartyVisitorId: text("first_party_visitor_id"),
    event: text("event"),
    datasource: text("datasource"),
    traceId: text("trace_id"),
    receivedAt: millis("received_at").notNull(),
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
