import { type SQL, sql } from "drizzle-orm";
import type { BuildColumns } from "drizzle-orm/column-builder";
import {
  type AnyPgColumn,
  bigserial,
  boolean,
  foreignKey,
  index,
  integer,
  json,
  type PgColumnBuilderBase,
  type PgTableExtraConfigValue,
  type PgTableWithColumns,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { ColumnKit, ColumnTypes, TypedAs } from "../store-sql/sql-columns.ts";
import type { SqlDialect } from "../store-sql/sql-dialect.ts";
import { bytea, millis } from "./columns.ts";

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
  integerSetting: (key) => sql<number>`coalesce((select value::bigint from settings where key = ${key}), 0)`,
  // An array made once (an InitPlan), so the index is searched per element; `in (select generate_series(…))`
  // was planned as a scan of the whole index's table.
  isIntegerBetween: (column, lowest, highest) =>
    sql`${column} = any(array(select generate_series((${lowest})::bigint, greatest((${lowest})::bigint, (${highest})::bigint))))`,
  greater: (a, b) => sql<number>`greatest(${a}, ${b})`,
  unindexed: (column) => column,
};

const textColumn = (name: string) => text(name).notNull();
const textOrNullColumn = (name: string) => text(name);
const textWithDefaultColumn = (name: string, value: string) => text(name).notNull().default(value);
const textKeyColumn = (name: string) => text(name).primaryKey();
const integerColumn = (name: string) => integer(name).notNull();
const integerFrom0Column = (name: string) => integer(name).notNull().default(0);
const int64Column = (name: string) => millis(name).notNull();
const int64OrNullColumn = (name: string) => millis(name);
const int64From0Column = (name: string) => millis(name).notNull().default(0);
const boolColumn = (name: string) => boolean(name).notNull();
const jsonColumn = (name: string) => json(name).notNull();
const bytesColumn = (name: string) => bytea(name).notNull();
const serialKeyColumn = (name: string) => bigserial(name, { mode: "number" }).primaryKey();

type PostgresTable<N extends string, C> = PgTableWithColumns<{
  name: N;
  schema: undefined;
  columns: BuildColumns<N, Extract<C, Record<string, PgColumnBuilderBase>>, "pg">;
  dialect: "pg";
}>;

/** PostgreSQL's columns: 64-bit integers (bigint) as numbers, native booleans, json, bytea. */
interface PostgresColumnTypes extends ColumnTypes {
  readonly text: TypedAs<ReturnType<typeof textColumn>, this["T"]>;
  readonly textOrNull: TypedAs<ReturnType<typeof textOrNullColumn>, this["T"]>;
  readonly textWithDefault: TypedAs<ReturnType<typeof textWithDefaultColumn>, this["T"]>;
  readonly textKey: ReturnType<typeof textKeyColumn>;
  readonly int: ReturnType<typeof integerColumn>;
  readonly intFrom0: ReturnType<typeof integerFrom0Column>;
  readonly int64: ReturnType<typeof int64Column>;
  readonly int64OrNull: ReturnType<typeof int64OrNullColumn>;
  readonly int64From0: ReturnType<typeof int64From0Column>;
  readonly bool: ReturnType<typeof boolColumn>;
  readonly json: TypedAs<ReturnType<typeof jsonColumn>, this["T"]>;
  readonly bytes: ReturnType<typeof bytesColumn>;
  readonly serialKey: ReturnType<typeof serialKeyColumn>;
  readonly table: PostgresTable<this["N"], this["C"]>;
  readonly constraint: PgTableExtraConfigValue;
}

type Columns = [AnyPgColumn, ...AnyPgColumn[]];

/** The schema's columns in PostgreSQL (adapters/store-sql/sql-columns.ts). */
export const postgresColumns: ColumnKit<PostgresColumnTypes> = {
  text: (name, options) => {
    const column = textColumn(name);
    if (options?.unique) column.unique();
    const referenced = options?.referencesOnDeleteCascade;
    if (referenced) column.references(referenced as () => AnyPgColumn, { onDelete: "cascade" });
    return column.$type() as never;
  },
  textOrNull: (name) => textOrNullColumn(name).$type() as never,
  textWithDefault: (name, value) => textWithDefaultColumn(name, value).$type() as never,
  textKey: textKeyColumn,
  int: integerColumn,
  intFrom0: integerFrom0Column,
  int64: int64Column,
  int64OrNull: int64OrNullColumn,
  int64From0: int64From0Column,
  bool: boolColumn,
  json: (name) => jsonColumn(name).$type() as never,
  bytes: bytesColumn,
  serialKey: serialKeyColumn,
  table: (name, columns, constraints) =>
    pgTable(name, columns as Record<string, PgColumnBuilderBase>, constraints as never) as never,
  primaryKey: (columns) => primaryKey({ columns: columns as Columns }),
  foreignKeyOnDeleteCascade: (columns, foreignColumns) =>
    foreignKey({ columns: columns as Columns, foreignColumns: foreignColumns as Columns }).onDelete("cascade"),
  index: (name, columns, where) => withWhere(index(name).on(...(columns as Columns)), where),
  uniqueIndex: (name, columns, where) => withWhere(uniqueIndex(name).on(...(columns as Columns)), where),
};

function withWhere<B extends { where(condition: SQL): B }>(builder: B, where: SQL | undefined): B {
  return where === undefined ? builder : builder.where(where);
}
