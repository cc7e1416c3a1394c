import { eventsTable, eventVisitorsTable } from "../store-sql/events.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";

/** The table of adapters/store-sql/events.schema.ts in SQLite's columns. */
export const events = eventsTable(libsqlColumns);

/** The per-visitor index of `events`, built off the commit path (adapters/store-sql/events.schema.ts). */
export const eventVisitors = eventVisitorsTable(libsqlColumns);
