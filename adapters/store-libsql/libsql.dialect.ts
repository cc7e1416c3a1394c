import { sql } from "drizzle-orm";
import type { SqlDialect } from "../store-sql/sql-dialect.ts";

/** SQLite's spelling of what adapters/store-sql/ needs (its text is UTF-8, its binary collation byte order). */
export const libsqlDialect: SqlDialect = {
  startsWith: (column, prefix) => sql`instr(${column}, ${prefix}) = 1`,
  contains: (column, text) => sql`instr(coalesce(${column}, ''), ${text}) > 0`,
  inCodeUnitOrder: (column) => column,
  byteLength: (column) => sql<number | null>`length(cast(${column} as blob))`,
  leadingCharacters: (column, characters) => sql<string | null>`substr(${column}, 1, ${characters})`,
  // @libsql/client's ResultSet.
  rowsChanged: (result) => (result as { readonly rowsAffected: number }).rowsAffected,
};
