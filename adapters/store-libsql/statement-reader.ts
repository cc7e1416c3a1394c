import { fileURLToPath } from "node:url";
import Database from "libsql";
import { placeholderName } from "./row-statements.ts";

/** A read drizzle built once: its text and the names of its placeholders, in parameter order. */
export interface ReaderQuery {
  readonly sql: string;
  readonly names: readonly string[];
}

/** The text and placeholder names of a query built with `sql.placeholder(name)` for every value. */
export function readerQuery(built: { sql: string; params: unknown[] }): ReaderQuery {
  return {
    sql: built.sql,
    names: built.params.map(placeholderName),
  };
}

/** Of the database file mapped into memory for reading (the address space is reserved, not the memory). */
const mmapBytes = 4 * 1024 * 1024 * 1024;
/** The reader's page cache (SQLite's default is 2 MiB). */
const cacheKib = 64 * 1024;

/**
 * Single-row reads on a read-only connection of libSQL's own driver, keeping each statement prepared. Through
 * @libsql/client every statement is prepared again and its columns asked for on every call: about 20–30 µs on
 * top of a read that takes 4–6 µs (bench/FINDINGS.md). Used for the reads of a moments lookup and for the
 * profile worker's reading of events in order. In WAL mode
 * each read sees every transaction committed before it, on any connection, and never blocks a writer.
 */
export class StatementReader {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement<unknown[]>>();

  constructor(
    /** The database file. */
    readonly path: string,
    busyTimeoutMs: number,
  ) {
    this.db = new Database(path, { readonly: true, timeout: busyTimeoutMs } as Database.Options);
    // Lookups land anywhere in a file of a million profiles: pages are read through a memory map instead of a
    // read call each, and more of them are kept.
    this.db.exec(`PRAGMA mmap_size=${mmapBytes}; PRAGMA cache_size=-${cacheKib}`);
  }

  /** The reader of a `file:` database; null for one in memory (a second connection would be another database). */
  static forUrl(url: string, busyTimeoutMs: number): StatementReader | null {
    if (!url.startsWith("file:") || url.startsWith("file::memory:")) return null;
    return new StatementReader(fileURLToPath(url), busyTimeoutMs);
  }

  /** The first row of `query` as an array of its columns, or undefined. */
  row(query: ReaderQuery, values: Readonly<Record<string, unknown>>): unknown[] | undefined {
    return this.rowOf(
      query.sql,
      query.names.map((name) => values[name]),
    );
  }

  /** The first row of the query `sql` with its placeholders' values in order, or undefined. */
  rowOf(sql: string, values: readonly unknown[]): unknown[] | undefined {
    return this.statement(sql).get(...values) as unknown[] | undefined;
  }

  /** Every row of `query`, each as an array of its columns. */
  rows(query: ReaderQuery, values: Readonly<Record<string, unknown>>): unknown[][] {
    return this.statement(query.sql).all(...query.names.map((name) => values[name])) as unknown[][];
  }

  private statement(sql: string): Database.Statement<unknown[]> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql).raw(true);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  close(): void {
    this.statements.clear();
    this.db.close();
  }
}
