import { bigserial } from "drizzle-orm/pg-core";
import { sessionsTables } from "../store-sql/sessions.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";
import { users } from "./tenancy.schema.ts";

/**
 * The tables of adapters/store-sql/sessions.schema.ts in PostgreSQL's columns. `made` numbers the sessions in
 * the order they were made (the libSQL store uses its rowid; PostgreSQL has none that stays when a row is updated).
 */
export const { sessions, lockouts } = sessionsTables(postgresColumns, users, {
  made: bigserial("made", { mode: "number" }).notNull(),
});
