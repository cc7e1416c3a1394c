import { rateCountsTable } from "../store-sql/rate-counts.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";

/** The table of adapters/store-sql/rate-counts.schema.ts in SQLite's columns. */
export const collectRateCounts = rateCountsTable(libsqlColumns);
