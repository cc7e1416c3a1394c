import { sql } from "drizzle-orm";
import type { RateCount, RateCountExchange, RateCountStore } from "../../core/ports/index.ts";
import type { PgDatabase } from "./database.ts";
import { collectRateCounts } from "./rate-counts.schema.ts";

/**
 * The collection rate counts on PostgreSQL, shared by every node. An exchange is one statement, one round trip
 * however many accounts it holds (the values go as arrays): the node's counts written, past seconds deleted,
 * the others' counts read, all in one snapshot. The node's own rows are no other node's, so writers never wait
 * for each other; the past rows are deleted by whichever node locks them first (SKIP LOCKED), so nodes turning
 * the same second never wait for each other's deletion either.
 */
export class PgRateCountRepo implements RateCountStore {
  constructor(private readonly db: PgDatabase) {}

  async exchange(exchange: RateCountExchange): Promise<RateCount[]> {
    const { node, counts, fromSecond, toSecond } = exchange;
    const table = collectRateCounts;
    const rows = await this.db.execute<{ account: string; second: number; offered: number; admitted: number }>(sql`
      with written as (
        insert into ${table} (node, account, second, offered, admitted)
        select ${node}, given.account, given.second, given.offered, given.admitted
        from unnest(
          ${sql.param(counts.map((count) => count.account))}::text[],
          ${sql.param(counts.map((count) => count.second))}::bigint[],
          ${sql.param(counts.map((count) => count.offered))}::integer[],
          ${sql.param(counts.map((count) => count.admitted))}::integer[]
        ) as given(account, second, offered, admitted)
        on conflict (node, account, second) do update set offered = excluded.offered, admitted = excluded.admitted
      ), removed as (
        delete from ${table} where (node, account, second) in (
          select node, account, second from ${table}
          where second < ${fromSecond - 1} or second > ${toSecond + 1}
          for update skip locked
        )
      )
      select account, second, sum(offered)::integer as offered, sum(admitted)::integer as admitted
      from ${table}
      where node <> ${node} and account = any(${sql.param(exchange.accounts)}::text[])
        and second between ${fromSecond} and ${toSecond}
      group by account, second`);
    return rows.map(({ account, second, offered, admitted }) => ({
      account,
      second: Number(second),
      offered,
      admitted,
    }));
  }
}
