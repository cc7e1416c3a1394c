import { type SQL, sql } from "drizzle-orm";
import type { BuildColumns } from "drizzle-orm/column-builder";
import {
  type AnySQLiteColumn,
  blob,
  foreignKey,
  index,
  integer,
  primaryKey,
  type SQLiteColumnBuilderBase,
  type SQLiteTableExtraConfigValue,
  type SQLiteTableWithColumns,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import type { ColumnKit, ColumnTypes, TypedAs } from "../store-sql/sql-columns.ts";
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
  integerSetting: (key) => sql<number>`coalesce((select cast(value as integer) from settings where key = ${key}), 0)`,
  // A recursive common table expression: SQLite has no generate_series of its own.
  isIntegerBetween: (column, lowest, highest) =>
    sql`${column} in (with recursive integers(n) as (select ${lowest} union all select n + 1 from integers where n < ${highest}) select n from integers)`,
  greater: (a, b) => sql<number>`max(${a}, ${b})`,
  unindexed: (column) => sql`+${column}`,
};

const textColumn = (name: string) => text(name).notNull();
const textOrNullColumn = (name: string) => text(name);
const textWithDefaultColumn = (name: string, value: string) => text(name).notNull().default(value);
const textKeyColumn = (name: string) => text(name).primaryKey();
const integerColumn = (name: string) => integer(name).notNull();
const integerOrNullColumn = (name: string) => integer(name);
const integerFrom0Column = (name: string) => integer(name).notNull().default(0);
const boolColumn = (name: string) => integer(name, { mode: "boolean" }).notNull();
const jsonColumn = (name: string) => text(name, { mode: "json" }).notNull();
const bytesColumn = (name: string) => blob(name, { mode: "buffer" }).notNull();
const serialKeyColumn = (name: string) => integer(name).primaryKey({ autoIncrement: true });

/**
 * SQLite's columns: integers are 64-bit whatever they are declared, timestamps integer epoch milliseconds,
 * booleans 0 and 1, JSON text.
 */
interface SqliteColumnTypes extends ColumnTypes {
  readonly text: TypedAs<ReturnType<typeof textColumn>, this["T"]>;
  readonly textOrNull: TypedAs<ReturnType<typeof textOrNullColumn>, this["T"]>;
  readonly textWithDefault: TypedAs<ReturnType<typeof textWithDefaultColumn>, this["T"]>;
  readonly textKey: ReturnType<typeof textKeyColumn>;
  readonly int: ReturnType<typeof integerColumn>;
  readonly intFrom0: ReturnType<typeof integerFrom0Column>;
  readonly int64: ReturnType<typeof integerColumn>;
  readonly int64OrNull: ReturnType<typeof integerOrNullColumn>;
  readonly int64From0: ReturnType<typeof integerFrom0Column>;
  readonly bool: ReturnType<typeof boolColumn>;
  readonly json: TypedAs<ReturnType<typeof jsonColumn>, this["T"]>;
  readonly bytes: ReturnType<typeof bytesColumn>;
  readonly serialKey: ReturnType<typeof serialKeyColumn>;
  readonly table: SqliteTable<this["N"], this["C"]>;
  readonly constraint: SQLiteTableExtraConfigValue;
}

type SqliteTable<N extends string, C> = SQLiteTableWithColumns<{
  name: N;
  schema: undefined;
  columns: BuildColumns<N, Extract<C, Record<string, SQLiteColumnBuilderBase>>, "sqlite">;
  dialect: "sqlite";
}>;

type Columns = [AnySQLiteColumn, ...AnySQLiteColumn[]];

/** The schema's columns in SQLite (adapters/store-sql/sql-columns.ts). */
export const libsqlColumns: ColumnKit<SqliteColumnTypes> = {
  text: (name, options) => {
    const column = textColumn(name);
    if (options?.unique) column.unique();
    const referenced = options?.referencesOnDeleteCascade;
    if (referenced) column.references(referenced as () => AnySQLiteColumn, { onDelete: "cascade" });
    return column.$type() as never;
  },
  textOrNull: (name) => textOrNullColumn(name).$type() as never,
  textWithDefault: (name, value) => textWithDefaultColumn(name, value).$type() as never,
  textKey: textKeyColumn,
  int: integerColumn,
  intFrom0: integerFrom0Column,
  int64: integerColumn,
  int64OrNull: integerOrNullColumn,
  int64From0: integerFrom0Column,
  bool: boolColumn,
  json: (name) => jsonColumn(name).$type() as never,
  bytes: bytesColumn,
  serialKey: serialKeyColumn,
  table: (name, columns, constraints) =>
    sqliteTable(name, columns as Record<string, SQLiteColumnBuilderBase>, constraints as never) as never,
  primaryKey: (columns) => primaryKey({ columns: columns as Columns }),
  foreignKeyOnDeleteCascade: (columns, foreignColumns) =>
    foreignKey({ columns: columns as Columns, foreignColumns: foreignColumns as Columns }).onDelete("cascade"),
  index: (name, columns, where) => withWhere(index(name).on(...(columns as Columns)), where),
  uniqueIndex: (name, columns, where) => withWhere(uniqueIndex(name).on(...(columns as Columns)), where),
};

function withWhere<B extends { where(condition: SQL): B }>(builder: B, where: SQL | undefined): B {
  return where === undefined ? builder : builder.where(where);
}
