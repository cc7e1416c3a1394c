import { filesTable } from "../store-sql/files.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";

/** The table of adapters/store-sql/files.schema.ts in SQLite's columns. */
export const fileImports = filesTable(libsqlColumns);
