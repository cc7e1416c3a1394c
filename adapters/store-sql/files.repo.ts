import { and, asc, count, desc, eq, gte, inArray, lte, ne, type Table } from "drizzle-orm";
import type { SelectResultFields } from "drizzle-orm/query-builders/select.types";
import { csvExtension, prefixGroupsOfQuery, type StatusEntry } from "../../core/files/index.ts";
import type { FileSourceType, FileStatusRecord, FileStatusStore, ImportProgress } from "../../core/ports/index.ts";
import { columnsOf, type SqlColumn, type SqlDatabase } from "./sql-database.ts";
import type { SqlDialect } from "./sql-dialect.ts";

/** The `file_imports` table (files.schema.ts of each store), as this area reads and writes it. */
export type FileImportsTable = Table & {
  readonly id: SqlColumn<string>;
  readonly account: SqlColumn<string>;
  readonly profile: SqlColumn<string>;
  readonly name: SqlColumn<string>;
  readonly prefix: SqlColumn<string>;
  readonly createdAt: SqlColumn<number>;
  readonly nodeId: SqlColumn<string>;
  readonly size: SqlColumn<number>;
  readonly checksum: SqlColumn<string>;
  readonly sourceType: SqlColumn<FileSourceType>;
  readonly sourceHost: SqlColumn<string>;
  readonly lineCount: SqlColumn<number>;
  readonly status: SqlColumn<string>;
  readonly finished: SqlColumn<boolean>;
  readonly progress: SqlColumn<string, true>;
};

const columnNames = [
  "id",
  "account",
  "profile",
  "name",
  "prefix",
  "createdAt",
  "nodeId",
  "size",
  "checksum",
  "sourceType",
  "sourceHost",
  "lineCount",
  "status",
  "finished",
  "progress",
] as const;

type FileColumns = Pick<FileImportsTable, (typeof columnNames)[number]>;
type FileRow = SelectResultFields<FileColumns>;

function toRecord(row: FileRow): FileStatusRecord {
  return {
    id: row.id,
    account: row.account,
    profile: row.profile,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt,
    nodeId: row.nodeId,
    file: {
      size: row.size,
      checksum: row.checksum,
      sourceType: row.sourceType,
      sourceHost: row.sourceHost,
      lineCount: row.lineCount,
    },
    status: JSON.parse(row.status) as StatusEntry[],
    finished: row.finished,
    progress: row.progress === null ? null : (JSON.parse(row.progress) as ImportProgress),
  };
}

function changesOf(record: FileStatusRecord) {
  return {
    nodeId: record.nodeId,
    size: record.file.size,
    checksum: record.file.checksum,
    sourceType: record.file.sourceType,
    sourceHost: record.file.sourceHost,
    lineCount: record.file.lineCount,
    status: JSON.stringify(record.status),
    finished: record.finished,
    progress: record.progress === null ? null : JSON.stringify(record.progress),
  };
}

/** A file import as a row of `file_imports`. */
export function fileImportRowOf(record: FileStatusRecord): FileRow {
  const { id, account, profile, name, prefix, createdAt } = record;
  return { id, account, profile, name, prefix, createdAt, ...changesOf(record) };
}

/**
 * FIL-*, DEC-FIL-03..06: the file imports in SQL, for both stores. Replacing a finished import (a delete and
 * an insert that succeed or fail together) is the store's own: libSQL batches, PostgreSQL runs a transaction.
 */
export abstract class SqlFileStatusRepo implements FileStatusStore {
  private readonly columns: FileColumns;

  constructor(
    protected readonly db: SqlDatabase,
    protected readonly table: FileImportsTable,
    private readonly dialect: SqlDialect,
  ) {
    this.columns = columnsOf(table, columnNames);
  }

  abstract replace(previous: FileStatusRecord, next: FileStatusRecord): Promise<boolean>;

  /** DEC-FIL-04: the unique index decides, so two nodes receiving the same name cannot both import it. */
  async create(record: FileStatusRecord): Promise<boolean> {
    const inserted = await this.db
      .insert(this.table)
      .values(fileImportRowOf(record))
      .onConflictDoNothing()
      .returning({ id: this.table.id });
    return inserted.length === 1;
  }

  async find(account: string, profile: string, name: string): Promise<FileStatusRecord | null> {
    const { table } = this;
    const rows = await this.db
      .select(this.columns)
      .from(table)
      .where(and(eq(table.account, account), eq(table.profile, profile), eq(table.name, name)))
      .limit(1);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async update(record: FileStatusRecord): Promise<void> {
    await this.db.update(this.table).set(changesOf(record)).where(eq(this.table.id, record.id));
  }

  /**
   * DEC-FIL-06: fileMatchesPrefix in SQL. The prefix groups are read through `files_prefix_idx` (one value
   * for a prefix without `_`); the name must then start with `<prefix>_` (case-sensitive, unlike LIKE) and
   * not be `<prefix>_.csv` (every name ends in .csv, DEC-FIL-04: so it has an id).
   */
  private inRange(account: string, profile: string, prefix: string, from: number, to: number) {
    const { table } = this;
    const groups = prefixGroupsOfQuery(prefix);
    return and(
      eq(table.account, account),
      eq(table.profile, profile),
      groups.length === 1 ? eq(table.prefix, prefix) : inArray(table.prefix, groups),
      gte(table.createdAt, from),
      lte(table.createdAt, to),
      this.dialect.startsWith(table.name, `${prefix}_`),
      ne(table.name, `${prefix}_${csvExtension}`),
    );
  }

  async count(account: string, profile: string, prefix: string, from: number, to: number): Promise<number> {
    const rows = await this.db
      .select({ n: count() })
      .from(this.table)
      .where(this.inRange(account, profile, prefix, from, to));
    return rows[0]?.n ?? 0;
  }

  async search(
    account: string,
    profile: string,
    prefix: string,
    from: number,
    to: number,
  ): Promise<FileStatusRecord[]> {
    const rows = await this.db
      .select(this.columns)
      .from(this.table)
      .where(this.inRange(account, profile, prefix, from, to))
      .orderBy(asc(this.table.createdAt), asc(this.table.id));
    return rows.map(toRecord);
  }

  /** Read backwards through `files_list_idx`: no more rows than the limit (ids are hex: any collation orders them alike). */
  async list(account: string, profile: string, limit: number): Promise<FileStatusRecord[]> {
    const { table } = this;
    const rows = await this.db
      .select(this.columns)
      .from(table)
      .where(and(eq(table.account, account), eq(table.profile, profile)))
      .orderBy(desc(table.createdAt), desc(table.id))
      .limit(Math.max(0, limit));
    return rows.map(toRecord);
  }

  async unfinished(): Promise<FileStatusRecord[]> {
    const rows = await this.db
      .select(this.columns)
      .from(this.table)
      .where(eq(this.table.finished, false))
      .orderBy(asc(this.table.createdAt), asc(this.table.id));
    return rows.map(toRecord);
  }
}
