import { sessionsTables } from "../store-sql/sessions.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";
import { users } from "./tenancy.schema.ts";

/** The tables of adapters/store-sql/sessions.schema.ts in SQLite's columns; a session's order of making is its rowid. */
export const { sessions, lockouts } = sessionsTables(libsqlColumns, users, {});
