import { eventsTable } from "../store-sql/events.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";

/** The table of adapters/store-sql/events.schema.ts in PostgreSQL's columns. */
export const events = eventsTable(postgresColumns);
