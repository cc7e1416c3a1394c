import { sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { nextEventLoopTurn } from "../runtime/event-loop.ts";
import type { ClientDatabase } from "./row-statements.ts";

/** How many rowids one page of a scan covers: a statement reads at most this many rows. */
export const rowidPageSize = 5_000;

/**
 * Walks a table by ranges of its rowid, `rowidPageSize` rowids a page, from the lowest to the highest there is
 * when the walk begins (both found at once, at the ends of the table's b-tree), calling `visit` with each
 * range, and yielding to the event loop between pages. A scan of the whole table (a deletion's search for a
 * value) so reads and holds one page at a time, and the requests that arrive meanwhile are answered between
 * pages instead of after the whole scan.
 */
export async function forEachRowidPage(
  db: ClientDatabase,
  table: SQLiteTable,
  visit: (fromRowid: number, toRowid: number) => Promise<void>,
): Promise<void> {
  const [ends] = await db.all<{ low: number | null; high: number | null }>(
    sql`select min(rowid) as low, max(rowid) as high from ${table}`,
  );
  if (ends?.low == null || ends.high == null) return;
  for (let from = ends.low; from <= ends.high; from += rowidPageSize) {
    await visit(from, Math.min(from + rowidPageSize - 1, ends.high));
    await nextEventLoopTurn();
  }
}
