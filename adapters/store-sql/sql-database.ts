import type { AnyColumn, SQL, Table } from "drizzle-orm";
import type { SelectResultFields } from "drizzle-orm/query-builders/select.types";

/** A column of either dialect whose value reads as `T` (null too when `nullable`). */
export type SqlColumn<T, Nullable extends boolean = false> = AnyColumn<{
  data: T;
  notNull: Nullable extends true ? false : true;
}>;

/** What a select may name: columns of either dialect, or SQL expressions typed with `sql<T>`. */
export type SqlFields = Record<string, AnyColumn | SQL | SQL.Aliased>;

type Ordering = AnyColumn | SQL | SQL.Aliased;

/** A select being built, in drizzle's order (from, joins, where, group, order, limit); awaiting it runs it. */
export interface SqlSelect<Row> extends SqlWhere<Row> {
  innerJoin(table: Table, on: SQL | undefined): SqlSelect<Row>;
  leftJoin(table: Table, on: SQL | undefined): SqlSelect<Row>;
  where(condition: SQL | undefined): SqlWhere<Row>;
}

export interface SqlWhere<Row> extends SqlOrdered<Row> {
  groupBy(...columns: Ordering[]): SqlOrdered<Row>;
  orderBy(...order: Ordering[]): SqlOrdered<Row>;
}

export interface SqlOrdered<Row> extends PromiseLike<Row[]> {
  limit(count: number): PromiseLike<Row[]>;
  /** The statement and its parameters, as the database will be sent them. */
  toSQL(): { sql: string; params: unknown[] };
  /** The select as a subquery, for `exists` and `in`. */
  getSQL(): SQL;
}

/** A write being built; awaiting it runs it, `returning` names what it answers of the rows it wrote. */
export interface SqlReturning extends PromiseLike<unknown> {
  returning<F extends SqlFields>(fields: F): PromiseLike<SelectResultFields<F>[]>;
}

export interface SqlFiltered {
  where(condition: SQL | undefined): SqlReturning;
}

export interface SqlInsert extends SqlReturning {
  onConflictDoNothing(): SqlReturning;
}

/**
 * The part of drizzle's query builders that its SQLite and PostgreSQL dialects share, method for method:
 * what the stores' areas (adapters/store-sql/) write once for both databases. Each dialect hands its drizzle
 * database over as this (sqlDatabaseOf in its store folder); what differs between the two (transactions,
 * upserts, locks, functions such as `instr`/`strpos`) stays in the dialect's own files.
 */
export interface SqlDatabase {
  select<F extends SqlFields>(fields: F): { from(table: Table): SqlSelect<SelectResultFields<F>> };
  insert(table: Table): { values(row: Record<string, unknown> | readonly Record<string, unknown>[]): SqlInsert };
  update(table: Table): { set(changes: Record<string, unknown>): SqlFiltered & SqlReturning };
  delete(table: Table): SqlFiltered & SqlReturning;
}

/** The columns `names` of a table, to select as they are (each dialect's `select()` of a whole table has its own type). */
export function columnsOf<T extends Table, K extends keyof T & string>(table: T, names: readonly K[]): Pick<T, K> {
  return Object.fromEntries(names.map((name) => [name, table[name]])) as Pick<T, K>;
}
