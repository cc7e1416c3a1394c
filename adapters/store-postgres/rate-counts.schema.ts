import { rateCountsTable } from "../store-sql/rate-counts.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";

/** The table of adapters/store-sql/rate-counts.schema.ts in PostgreSQL's columns. */
export const collectRateCounts = rateCountsTable(postgresColumns);
