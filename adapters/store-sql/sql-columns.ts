import type { $Type, ColumnBuilderBase, SQL, Table } from "drizzle-orm";

/**
 * The types of one dialect's columns and tables, for the schema written once (adapters/store-sql/*.schema.ts).
 * Each kind of column is a type of `T`, the TypeScript type its values hold, and a table a type of its name `N`
 * and columns `C`: a dialect's types extend this with `this["T"]`, `this["N"]` and `this["C"]` in its kinds
 * (TypeScript has no type that takes a type, so `ColumnOf` and `TableOf` fill these in).
 */
export interface ColumnTypes {
  readonly T: unknown;
  readonly N: string;
  readonly C: unknown;
  /** Not null. */
  readonly text: unknown;
  readonly textOrNull: unknown;
  /** Not null, `value` when not given. */
  readonly textWithDefault: unknown;
  /** The primary key. */
  readonly textKey: unknown;
  /** 32-bit, not null. */
  readonly int: unknown;
  /** 32-bit, not null, 0 when not given. */
  readonly intFrom0: unknown;
  /** 64-bit (epoch milliseconds, sequence numbers, sizes), a number in TypeScript, not null. */
  readonly int64: unknown;
  readonly int64OrNull: unknown;
  /** 64-bit, not null, 0 when not given. */
  readonly int64From0: unknown;
  readonly bool: unknown;
  /** JSON of a `T`, not null. */
  readonly json: unknown;
  /** Bytes, a Buffer in TypeScript, not null. */
  readonly bytes: unknown;
  /** An integer key the database gives, in increasing order and never reused. */
  readonly serialKey: unknown;
  readonly table: Table;
  /** What a table's constraints are (its keys, foreign keys and indexes). */
  readonly constraint: unknown;
}

type ColumnKind = Exclude<keyof ColumnTypes, "T" | "N" | "C" | "table" | "constraint">;

/** The builder `B` with its values typed `T`, where `T` says more than `B` does (drizzle's `$type`). */
export type TypedAs<B extends ColumnBuilderBase, T> = [T] extends [B["_"]["data"]]
  ? [B["_"]["data"]] extends [T]
    ? B
    : $Type<B, T>
  : $Type<B, T>;

/** A dialect's column of kind `Kind` holding `T`. */
export type ColumnOf<D extends ColumnTypes, Kind extends ColumnKind, T = unknown> = (D & { readonly T: T })[Kind];

/**
 * A column of either dialect, as the schema's constraints name it (a dialect's own column is one: naming it so
 * takes nothing from its type).
 */
export interface SchemaColumn {
  readonly name: string;
  readonly table: Table;
}

/** The columns `C` of a table, as its constraints and other tables' foreign keys name them. */
export type SchemaColumns<C> = { readonly [P in keyof C]: SchemaColumn };

/** A dialect's table `N` with the columns `C`. */
export type TableOf<D extends ColumnTypes, N extends string, C> = (D & { readonly N: N; readonly C: C })["table"] &
  SchemaColumns<C>;

export interface TextOptions {
  readonly unique?: true;
  /** A foreign key to `column`, the row deleted with the row it names. */
  readonly referencesOnDeleteCascade?: () => SchemaColumn;
}

/**
 * One dialect's builders for the schema written once: one function per kind of column, each answering the
 * finished column (drizzle's chained modifiers cannot be typed on a column of either dialect), the table and
 * its constraints. Each store's `<dialect>.dialect.ts` supplies one.
 */
export interface ColumnKit<D extends ColumnTypes> {
  text<T extends string = string>(name: string, options?: TextOptions): ColumnOf<D, "text", T>;
  textOrNull<T extends string = string>(name: string): ColumnOf<D, "textOrNull", T>;
  textWithDefault<T extends string>(name: string, value: T): ColumnOf<D, "textWithDefault", T>;
  textKey(name: string): ColumnOf<D, "textKey">;
  int(name: string): ColumnOf<D, "int">;
  intFrom0(name: string): ColumnOf<D, "intFrom0">;
  int64(name: string): ColumnOf<D, "int64">;
  int64OrNull(name: string): ColumnOf<D, "int64OrNull">;
  int64From0(name: string): ColumnOf<D, "int64From0">;
  bool(name: string): ColumnOf<D, "bool">;
  json<T>(name: string): ColumnOf<D, "json", T>;
  bytes(name: string): ColumnOf<D, "bytes">;
  serialKey(name: string): ColumnOf<D, "serialKey">;
  table<N extends string, C extends Record<string, unknown>>(
    name: N,
    columns: C,
    constraints?: (table: SchemaColumns<C>) => D["constraint"][],
  ): TableOf<D, N, C>;
  primaryKey(columns: readonly SchemaColumn[]): D["constraint"];
  /** A foreign key whose rows are deleted with the row they name. */
  foreignKeyOnDeleteCascade(columns: readonly SchemaColumn[], foreignColumns: readonly SchemaColumn[]): D["constraint"];
  index(name: string, columns: readonly SchemaColumn[], where?: SQL): D["constraint"];
  uniqueIndex(name: string, columns: readonly SchemaColumn[], where?: SQL): D["constraint"];
}
