import type { Client, InStatement, InValue } from "@libsql/client";
import { Param, Placeholder, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";

/** The drizzle database with its libSQL client, for statements run on the client itself. */
export type ClientDatabase = LibSQLDatabase & { readonly $client: Client };

/** How a column turns a value into what the driver takes (a JSON column: its text). */
interface Encoder {
  mapToDriverValue(value: unknown): unknown;
}

/** What drizzle builds a statement into. */
interface Buildable {
  toSQL(): { sql: string; params: unknown[] };
}

/** The name of a parameter drizzle built from `sql.placeholder(name)` (bare, or wrapped with its column). */
export function placeholderName(param: unknown): string {
  const placeholder = param instanceof Param ? param.value : param;
  if (!(placeholder instanceof Placeholder)) throw new Error("a parameter of the statement is not a placeholder");
  return String(placeholder.name);
}

export { chunks } from "../../core/values/index.ts";

/**
 * Multi-row statements (the events of a group commit, a batch's profile upserts) whose text drizzle builds
 * once per row count, with a placeholder for every value; each call only lines the values up. Building a
 * statement of a few hundred parameters through drizzle cost more than running it (about 0.6 ms for 40
 * events, bench/FINDINGS.md). Each value is encoded by its column, as drizzle would (a JSON column's
 * object becomes its text).
 */
export function rowStatements<Row extends object>(
  columns: ReadonlyArray<keyof Row & string>,
  build: (rows: Array<Record<keyof Row & string, Placeholder>>) => Buildable,
): (rows: readonly Row[]) => InStatement {
  const built = new Map<
    number,
    { sql: string; slots: Array<readonly [number, keyof Row & string, Encoder | undefined]> }
  >();
  const textFor = (count: number) => {
    const known = built.get(count);
    if (known) return known;
    const query = build(
      Array.from(
        { length: count },
        (_, row) =>
          Object.fromEntries(columns.map((column) => [column, sql.placeholder(`${row}:${column}`)])) as Record<
            keyof Row & string,
            Placeholder
          >,
      ),
    ).toSQL();
    const slots = query.params.map((param) => {
      const name = placeholderName(param);
      const colon = name.indexOf(":");
      const encoder =
        param instanceof Param &&
        typeof (param.encoder as Partial<Encoder> | undefined)?.mapToDriverValue === "function"
          ? (param.encoder as Encoder)
          : undefined;
      return [Number(name.slice(0, colon)), name.slice(colon + 1) as keyof Row & string, encoder] as const;
    });
    const entry = { sql: query.sql, slots };
    built.set(count, entry);
    return entry;
  };
  return (rows) => {
    const { sql: text, slots } = textFor(rows.length);
    return {
      sql: text,
      args: slots.map(([row, column, encoder]) => {
        const value = (rows[row] as Row)[column];
        return (
          value === null || value === undefined ? null : encoder ? encoder.mapToDriverValue(value) : value
        ) as InValue;
      }),
    };
  };
}
