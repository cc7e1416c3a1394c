import { and, between, gt, inArray, lt, ne, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { RateCount, RateCountExchange, RateCountStore } from "../../core/ports/index.ts";
import { chunks } from "../../core/values/index.ts";
import { collectRateCounts } from "./rate-counts.schema.ts";

/** Rows or accounts per statement: far below SQLite's limit of 32766 bound values. */
const perStatement = 1000;

/**
 * The collection rate counts in libSQL, shared by the processes on one database file. An exchange is one
 * `db.batch`, one transaction: the node's counts written, past seconds deleted, the others' counts read.
 */
export class LibsqlRateCountRepo implements RateCountStore {
  constructor(private readonly db: LibSQLDatabase) {}

  async exchange(exchange: RateCountExchange): Promise<RateCount[]> {
    const { db } = this;
    const { node, fromSecond, toSecond } = exchange;
    const written = chunks(exchange.counts, perStatement).map((counts) =>
      db
        .insert(collectRateCounts)
        .values(counts.map((count) => ({ node, ...count })))
        .onConflictDoUpdate({
          target: [collectRateCounts.node, collectRateCounts.account, collectRateCounts.second],
          set: { offered: sql`excluded.offered`, admitted: sql`excluded.admitted` },
        }),
    );
    const removed = db
      .delete(collectRateCounts)
      .where(or(lt(collectRateCounts.second, fromSecond - 1), gt(collectRateCounts.second, toSecond + 1)));
    const reads = chunks(exchange.accounts, perStatement).map((accounts) =>
      db
        .select({
          account: collectRateCounts.account,
          second: collectRateCounts.second,
          offered: sql<number>`sum(${collectRateCounts.offered})`.mapWith(Number),
          admitted: sql<number>`sum(${collectRateCounts.admitted})`.mapWith(Number),
        })
        .from(collectRateCounts)
        .where(
          and(
            ne(collectRateCounts.node, node),
            inArray(collectRateCounts.account, accounts),
            between(collectRateCounts.second, fromSecond, toSecond),
          ),
        )
        .groupBy(collectRateCounts.account, collectRateCounts.second),
    );
    const statements: [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]] = [removed, ...written, ...reads];
    const results = await db.batch(statements);
    return (results.slice(1 + written.length) as RateCount[][]).flat();
  }
}
