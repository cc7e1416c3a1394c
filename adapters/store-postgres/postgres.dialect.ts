import { sql } from "drizzle-orm";
import type { SqlDialect } from "../store-sql/sql-dialect.ts";

/** PostgreSQL's spelling of what adapters/store-sql/ needs (the database's encoding is UTF-8). */
export const postgresDialect: SqlDialect = {
  startsWith: (column, prefix) => sql`strpos(${column}, ${prefix}) = 1`,
  // The "C" collation orders by bytes; the database's default collation may not.
  contains: (column, text) => sql`strpos(coalesce(${column}, ''), ${text}) > 0`,
  inCodeUnitOrder: (column) => sql`${column} collate "C"`,
  byteLength: (column) => sql<number | null>`octet_length(${column})`,
  leadingCharacters: (column, characters) => sql<string | null>`left(${column}, ${characters})`,
  // postgres.js's result list.
  rowsChanged: (result) => (result as { readonly count: number }).count,
};
