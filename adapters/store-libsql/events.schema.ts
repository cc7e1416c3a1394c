import { eventsTable } from "../store-sql/events.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";

/** The table of adapters/store-sql/events.schema.ts in SQLite's columns. */
export const events = eventsTable(libsqlColumns);
