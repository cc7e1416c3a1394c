import { privacyTables } from "../store-sql/privacy.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";

/** The tables of adapters/store-sql/privacy.schema.ts in PostgreSQL's columns. */
export const { privacyTransactions, privacyAudit } = privacyTables(postgresColumns);
