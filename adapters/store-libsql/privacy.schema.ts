import { privacyTables } from "../store-sql/privacy.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";

/** The tables of adapters/store-sql/privacy.schema.ts in SQLite's columns. */
export const { privacyTransactions, privacyAudit } = privacyTables(libsqlColumns);
