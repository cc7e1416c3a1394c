import { eventsTable, eventVisitorsTable } from "../store-sql/events.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";

/** The table of adapters/store-sql/events.schema.ts in PostgreSQL's columns. */
export const events = eventsTable(postgresColumns);

/** The per-visitor index of `events`, built off the commit path (adapters/store-sql/events.schema.ts). */
export const eventVisitors = eventVisitorsTable(postgresColumns);
