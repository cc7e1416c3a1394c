import type { AnyColumn, SQL } from "drizzle-orm";

/**
 * What the SQL of the two databases spells differently, for the areas written once (adapters/store-sql/):
 * each store's `<dialect>.dialect.ts` answers it. Transactions, upserts and locks differ more than a
 * function name, so they stay in the stores' repositories.
 */
export interface SqlDialect {
  /** True when `column` starts with `prefix`, case-sensitive and free of LIKE's wildcards. */
  startsWith(column: AnyColumn, prefix: string): SQL;
  /** True when a text column holds `text` (null holds nothing), case-sensitive and free of LIKE's wildcards. */
  contains(column: AnyColumn, text: string): SQL;
  /**
   * DEC-DLE-09: `column` in code-unit order. Names hold only `A-Z a-z 0-9 _ - ~` (DLE-ERR-02), so byte order
   * is code-unit order; a database's default collation may not be.
   */
  inCodeUnitOrder(column: AnyColumn): AnyColumn | SQL;
  /** The length of a text column in bytes of its UTF-8 encoding (null stays null). */
  byteLength(column: AnyColumn): SQL<number | null>;
  /** The first `characters` characters (code points) of a text column (null stays null). */
  leadingCharacters(column: AnyColumn, characters: number): SQL<string | null>;
  /** The settings entry `key` read as an integer (0 when there is none), in one statement with the rest. */
  integerSetting(key: string): SQL<number>;
  /**
   * True when the integer `column` is one of the integers from `lowest` to `highest` (just `lowest` when it is the
   * greater), spelled so that the planner seeks an index led by `column` once per integer.
   */
  isIntegerBetween(column: AnyColumn, lowest: SQL, highest: SQL): SQL;
  /** The greater of two integers. */
  greater(a: SQL, b: SQL): SQL<number>;
  /**
   * `column` in a condition the planner must not answer with an index on it (SQLite's unary `+`: without
   * statistics it takes any index for selective; PostgreSQL plans from its statistics).
   */
  unindexed(column: AnyColumn): AnyColumn | SQL;
  /** How many rows an awaited insert, update or delete without `returning` changed (each driver names it its way). */
  rowsChanged(result: unknown): number;
}
