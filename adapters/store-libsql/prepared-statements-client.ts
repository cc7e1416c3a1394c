import {
  type Client,
  type InArgs,
  type InStatement,
  type InValue,
  LibsqlBatchError,
  LibsqlError,
  type ResultSet,
  type Row,
  type Transaction,
  type TransactionMode,
} from "@libsql/client/sqlite3";
import Database from "libsql";

/** The most statements kept prepared; past it the least recently used one is dropped. */
const keptStatements = 512;

/** How a statement's rows come back, worked out once when it is prepared. */
interface Kept {
  readonly statement: Database.Statement<unknown[]>;
  /** Null for a statement that returns no rows. */
  readonly shape: RowShape | null;
  /**
   * How many positional values it was last run with. The driver keeps a statement's values between runs, so
   * a call with fewer would reuse the last call's: such a call gets a statement of its own, whose missing
   * values are NULL, as with @libsql/client.
   */
  positional: number | null;
}

/** The column names and types of a statement's rows, and the class of its row objects. */
interface RowShape {
  readonly columns: string[];
  readonly columnTypes: string[];
  /** Enumerable own properties: the first column of each name, as @libsql/client makes them. */
  readonly named: ReadonlyArray<readonly [name: string, index: number]>;
  readonly Row: new (values: readonly unknown[]) => KeptRow;
}

/**
 * A row as drizzle and the repositories read @libsql/client's: indexed (`row[0]`, `length`, so that
 * `Array.prototype.slice.call(row)` gives its values) and with each column name as an own enumerable key. The
 * values sit in a private field and the indexes are getters of a prototype made once per statement, so a row
 * costs one object and a few assignments instead of a property definition per value.
 */
class KeptRow {
  readonly #values: readonly unknown[];

  constructor(values: readonly unknown[]) {
    this.#values = values;
  }

  static valueAt(row: KeptRow, index: number): unknown {
    return row.#values[index];
  }
}

/** The class of the rows of `count` columns: `length` and each index on its prototype, not enumerable. */
function rowClass(count: number): RowShape["Row"] {
  const Row = class extends KeptRow {};
  const accessors: PropertyDescriptorMap = { length: { get: () => count } };
  for (let index = 0; index < count; index += 1) {
    accessors[index] = {
      get(this: KeptRow) {
        return KeptRow.valueAt(this, index);
      },
    };
  }
  Object.defineProperties(Row.prototype, accessors);
  return Row;
}

/** A statement that can change the schema (after any comments), after which kept statements may describe their rows wrongly. */
const schemaChange = /^(?:\s+|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*(create|alter|drop|attach|detach)\b/i;

const minSafe = BigInt(Number.MIN_SAFE_INTEGER);
const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);
const minInteger = -9223372036854775808n;
const maxInteger = 9223372036854775807n;

/** A value read, as @libsql/client answers it with integers as numbers: a blob as an ArrayBuffer. */
function valueFromSql(value: unknown): unknown {
  if (typeof value === "bigint") {
    if (value < minSafe || value > maxSafe)
      throw new RangeError("Received integer which cannot be safely represented as a JavaScript number");
    return Number(value);
  }
  if (value instanceof Uint8Array) return value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
  return value;
}

/** A value to bind, as @libsql/client takes it. */
function valueToSql(value: InValue | undefined): unknown {
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new RangeError("Only finite numbers (not Infinity or NaN) can be passed as arguments");
    return value;
  }
  if (typeof value === "bigint") {
    if (value < minInteger || value > maxInteger)
      throw new RangeError("bigint is too large to be represented as a 64-bit integer and passed as argument");
    return value;
  }
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new TypeError("undefined cannot be passed as argument to the database");
  return value;
}

const baseCodes: Readonly<Record<number, string>> = {
  1: "SQLITE_ERROR",
  2: "SQLITE_INTERNAL",
  3: "SQLITE_PERM",
  4: "SQLITE_ABORT",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  7: "SQLITE_NOMEM",
  8: "SQLITE_READONLY",
  9: "SQLITE_INTERRUPT",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  12: "SQLITE_NOTFOUND",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  15: "SQLITE_PROTOCOL",
  16: "SQLITE_EMPTY",
  17: "SQLITE_SCHEMA",
  18: "SQLITE_TOOBIG",
  19: "SQLITE_CONSTRAINT",
  20: "SQLITE_MISMATCH",
  21: "SQLITE_MISUSE",
  22: "SQLITE_NOLFS",
  23: "SQLITE_AUTH",
  24: "SQLITE_FORMAT",
  25: "SQLITE_RANGE",
  26: "SQLITE_NOTADB",
  27: "SQLITE_NOTICE",
  28: "SQLITE_WARNING",
};

/** The driver's error as @libsql/client reports it: a LibsqlError with the base and extended codes. */
function libsqlErrorOf(error: unknown): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  const rawCode = (error as { rawCode?: number }).rawCode;
  const code =
    rawCode === undefined ? "SQLITE_UNKNOWN" : (baseCodes[rawCode & 0xff] ?? `SQLITE_UNKNOWN_${rawCode & 0xff}`);
  return new LibsqlError(error.message, code, error.code, rawCode, error);
}

/** A statement's error in a batch, as @libsql/client reports it: with the statement's index. */
function batchErrorOf(error: unknown, index: number): unknown {
  if (!(error instanceof LibsqlError) || error instanceof LibsqlBatchError) return error;
  return new LibsqlBatchError(
    error.message,
    index,
    error.code,
    error.extendedCode,
    error.rawCode,
    error.cause instanceof Error ? error.cause : undefined,
  );
}

function beginOf(mode: TransactionMode): string {
  if (mode === "write") return "BEGIN IMMEDIATE";
  if (mode === "read") return "BEGIN TRANSACTION READONLY";
  if (mode === "deferred") return "BEGIN DEFERRED";
  throw new RangeError('Unknown transaction mode, supported values are "write", "read" and "deferred"');
}

/** The columns of a statement's rows, as @libsql/client names them. */
function shapeOf(statement: Database.Statement<unknown[]>): RowShape {
  const described = statement.columns();
  const columns = described.map((column) => column.name);
  // As @libsql/client: a name that is an index or `length`, or a name seen before, is not a key of its own.
  const reserved = (name: string) =>
    name === "length" || (/^(0|[1-9]\d*)$/.test(name) && Number(name) < columns.length);
  const named: Array<readonly [string, number]> = [];
  for (const [index, name] of columns.entries())
    if (!reserved(name) && !named.some(([seen]) => seen === name)) named.push([name, index]);
  return { columns, columnTypes: described.map((column) => column.type ?? ""), named, Row: rowClass(columns.length) };
}

class Result implements ResultSet {
  constructor(
    readonly columns: string[],
    readonly columnTypes: string[],
    readonly rows: Row[],
    readonly rowsAffected: number,
    readonly lastInsertRowid: bigint | undefined,
  ) {}

  toJSON() {
    return {
      columns: this.columns,
      columnTypes: this.columnTypes,
      rows: this.rows.map((row) =>
        Array.prototype.map.call(row, (value: unknown) =>
          typeof value === "bigint"
            ? `${value}`
            : value instanceof ArrayBuffer
              ? Buffer.from(value).toString("base64")
              : value,
        ),
      ),
      rowsAffected: this.rowsAffected,
      lastInsertRowid: this.lastInsertRowid !== undefined ? `${this.lastInsertRowid}` : null,
    };
  }
}

type AnyStatement = InStatement | [string, InArgs?] | string;

const sqlOf = (statement: InStatement): string => (typeof statement === "string" ? statement : statement.sql);

function takesNoArguments(statement: InStatement): boolean {
  if (typeof statement === "string") return true;
  const args = statement.args ?? [];
  return Array.isArray(args) ? args.length === 0 : Object.keys(args).length === 0;
}

/**
 * The libSQL client of a local database file, on one connection of libSQL's own driver, keeping its statements
 * prepared. @libsql/client (0.18) prepares every statement again on every call, asks for its columns twice,
 * and builds each row with a property definition per value: for the multi-row statements of collection, the
 * profile worker and the import that cost as much as running them (bench/FINDINGS.md). This answers the same
 * results and errors (LibsqlError and LibsqlBatchError with SQLite's codes), for drizzle and for the
 * repositories. Each call runs synchronously once made, so a batch is never interleaved with another call.
 *
 * A kept statement stays right across schema changes: this client forgets its statements after any statement
 * that can change the schema, and SQLite prepares a statement again when another connection changed it (the
 * rows are then described again if their number of columns changed; the statements of the store name their
 * columns, so their names cannot change under them).
 */
export class PreparedStatementsClient implements Client {
  readonly protocol = "file";
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Kept>();
  private open = true;

  constructor(path: string, busyTimeoutMs: number) {
    try {
      this.db = new Database(path, { timeout: busyTimeoutMs } as Database.Options);
    } catch (error) {
      throw libsqlErrorOf(error);
    }
  }

  get closed(): boolean {
    return !this.open;
  }

  async execute(statementOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    this.checkOpen();
    return this.run(typeof statementOrSql === "string" ? { sql: statementOrSql, args: args ?? [] } : statementOrSql);
  }

  async batch(
    statements: Array<InStatement | [string, InArgs?]>,
    mode: TransactionMode = "deferred",
  ): Promise<ResultSet[]> {
    this.checkOpen();
    return this.inTransaction(beginOf(mode), statements);
  }

  /**
   * drizzle's migrator hands over every statement of the missing migrations, each followed by a row of its
   * journal. The migrations' statements take no arguments: each run of them is executed as one text (libSQL's
   * `exec`) instead of being prepared one by one, which on a fresh file was most of the store's opening
   * (bench/FINDINGS.md). A failure in such a run names the run's first statement as the failed one.
   */
  async migrate(statements: InStatement[]): Promise<ResultSet[]> {
    this.checkOpen();
    this.run("PRAGMA foreign_keys=off");
    try {
      this.run("BEGIN DEFERRED");
      try {
        const results: ResultSet[] = [];
        let index = 0;
        while (index < statements.length) {
          const first = index;
          while (index < statements.length && takesNoArguments(statements[index] as InStatement)) index++;
          if (index === first) {
            results.push(this.runInBatch(statements[index] as InStatement, index));
            index++;
            continue;
          }
          const texts = statements.slice(first, index).map((statement) => sqlOf(statement));
          try {
            this.exec(texts.join(";\n"));
          } catch (error) {
            throw batchErrorOf(error, first);
          }
          for (const _ of texts) results.push(new Result([], [], [], 0, undefined));
        }
        this.run("COMMIT");
        return results;
      } finally {
        if (this.db.inTransaction) this.run("ROLLBACK");
      }
    } finally {
      this.run("PRAGMA foreign_keys=on");
    }
  }

  /**
   * An interactive transaction on the one connection. Unlike @libsql/client's, calls made on the client while
   * it is open run inside it: the store never holds one open across an await (it writes with `batch`).
   */
  async transaction(mode: TransactionMode = "write"): Promise<Transaction> {
    this.checkOpen();
    this.run(beginOf(mode));
    let done = false;
    const client = this;
    const check = () => {
      if (done || !client.open || !client.db.inTransaction)
        throw new LibsqlError("The transaction is closed", "TRANSACTION_CLOSED");
    };
    const end = (sql: string) => {
      if (done) return;
      done = true;
      if (!client.open || !client.db.inTransaction) return;
      try {
        client.run(sql);
      } finally {
        // A COMMIT that failed (a deferred constraint, a full disk) must not leave the connection in it.
        if (client.db.inTransaction) client.run("ROLLBACK");
      }
    };
    return {
      async execute(statement: InStatement | string, args?: InArgs) {
        check();
        return client.run(typeof statement === "string" ? { sql: statement, args: args ?? [] } : statement);
      },
      async batch(statements: InStatement[]) {
        check();
        return statements.map((statement, index) => {
          try {
            return client.run(statement);
          } catch (error) {
            throw batchErrorOf(error, index);
          }
        });
      },
      async executeMultiple(sql: string) {
        check();
        client.exec(sql);
      },
      async rollback() {
        end("ROLLBACK");
      },
      async commit() {
        check();
        end("COMMIT");
      },
      close() {
        end("ROLLBACK");
      },
      get closed() {
        return done;
      },
    };
  }

  async executeMultiple(sql: string): Promise<void> {
    this.checkOpen();
    this.exec(sql);
  }

  async sync(): Promise<never> {
    throw new LibsqlError("sync is not supported on a local database file", "SYNC_NOT_SUPPORTED");
  }

  reconnect(): void {
    throw new LibsqlError("reconnect is not supported on a local database file", "RECONNECT_NOT_SUPPORTED");
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.statements.clear();
    this.db.close();
  }

  /** `statements` in one transaction begun with `begin`; rolled back if one fails. */
  private inTransaction(begin: string, statements: ReadonlyArray<AnyStatement>): ResultSet[] {
    this.run(begin);
    try {
      const results = statements.map((statement, index) => this.runInBatch(statement, index));
      this.run("COMMIT");
      return results;
    } finally {
      if (this.db.inTransaction) this.run("ROLLBACK");
    }
  }

  /** The `index`-th statement of a batch, in its open transaction. */
  private runInBatch(statement: AnyStatement, index: number): ResultSet {
    if (!this.db.inTransaction)
      throw new LibsqlBatchError("The transaction has been rolled back", index, "TRANSACTION_CLOSED");
    try {
      return this.run(statement);
    } catch (error) {
      throw batchErrorOf(error, index);
    }
  }

  private run(statement: AnyStatement): ResultSet {
    const [sql, given] =
      typeof statement === "string"
        ? [statement, []]
        : Array.isArray(statement)
          ? [statement[0], statement[1] ?? []]
          : [statement.sql, statement.args ?? []];
    try {
      let kept = this.prepared(sql);
      const args = Array.isArray(given)
        ? given.map(valueToSql)
        : Object.fromEntries(
            Object.entries(given).map(([name, value]) => [
              /^[@$:]/.test(name) ? name.slice(1) : name,
              valueToSql(value),
            ]),
          );
      if (Array.isArray(given)) {
        if (kept.positional !== null && kept.positional !== given.length) kept = this.prepared(sql, true);
        kept.positional = given.length;
      }
      if (!kept.shape) {
        const info = kept.statement.run(args);
        if (schemaChange.test(sql)) this.statements.clear();
        return new Result([], [], [], info.changes, BigInt(info.lastInsertRowid));
      }
      let shape = kept.shape;
      const raws = kept.statement.all(args) as unknown[][];
      // SQLite prepares a statement again when another connection changed the schema; its rows then may have
      // other columns than the ones described when it was kept.
      if (raws.length > 0 && (raws[0] as unknown[]).length !== shape.columns.length)
        shape = this.describe(sql, kept.statement);
      const { columns, columnTypes, named, Row: ShapeRow } = shape;
      const rows = raws.map((raw) => {
        const values = raw.map(valueFromSql);
        const row = new ShapeRow(values) as unknown as Record<string, unknown>;
        for (const [name, index] of named) {
          if (name === "__proto__")
            Object.defineProperty(row, name, {
              value: values[index],
              enumerable: true,
              configurable: true,
              writable: true,
            });
          else row[name] = values[index];
        }
        return row as unknown as Row;
      });
      return new Result(columns, columnTypes, rows, 0, undefined);
    } catch (error) {
      throw libsqlErrorOf(error);
    }
  }

  private exec(sql: string): void {
    try {
      this.db.exec(sql);
    } catch (error) {
      throw libsqlErrorOf(error);
    } finally {
      // The text may have changed the schema.
      this.statements.clear();
    }
  }

  /** The kept statement of `sql`, prepared now if it is not kept (or if `fresh`). */
  private prepared(sql: string, fresh = false): Kept {
    const known = fresh ? undefined : this.statements.get(sql);
    if (known) {
      // Most recently used last: the first entry is the one to drop.
      this.statements.delete(sql);
      this.statements.set(sql, known);
      return known;
    }
    const statement = this.db.prepare(sql);
    statement.safeIntegers(true);
    let returnsRows = true;
    try {
      statement.raw(true);
    } catch {
      // raw() throws for a statement that returns no rows.
      returnsRows = false;
    }
    const kept: Kept = { statement, shape: returnsRows ? shapeOf(statement) : null, positional: null };
    this.statements.delete(sql);
    this.statements.set(sql, kept);
    if (this.statements.size > keptStatements) this.statements.delete(this.statements.keys().next().value as string);
    return kept;
  }

  /** `statement`'s rows described again (its columns changed), and kept so. */
  private describe(sql: string, statement: Database.Statement<unknown[]>): RowShape {
    const shape = shapeOf(statement);
    const kept = this.statements.get(sql);
    if (kept?.statement === statement) this.statements.set(sql, { ...kept, shape });
    return shape;
  }

  /** How many statements are kept (a test's view of the cache's bound). */
  get keptCount(): number {
    return this.statements.size;
  }

  /** Whether the statement `sql` is kept prepared (a test's view of the cache's order). */
  isKept(sql: string): boolean {
    return this.statements.has(sql);
  }

  private checkOpen(): void {
    if (!this.open) throw new LibsqlError("The client is closed", "CLIENT_CLOSED");
  }
}
