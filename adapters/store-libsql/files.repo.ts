import { and, asc, count, desc, eq, gte, inArray, lte, ne, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { StatusEntry } from "../../core/files/index.ts";
import { csvExtension, prefixGroupsOfQuery } from "../../core/files/index.ts";
import type { FileStatusRecord, FileStatusStore, ImportProgress } from "../../core/ports/index.ts";
import { fileImports } from "./files.schema.ts";

type FileRow = typeof fileImports.$inferSelect;

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

export class LibsqlFileStatusRepo implements FileStatusStore {
  constructor(private readonly db: LibSQLDatabase) {}

  /** DEC-FIL-04: the unique index decides, so two nodes receiving the same name cannot both import it. */
  async create(record: FileStatusRecord): Promise<boolean> {
    const inserted = await this.db
      .insert(fileImports)
      .values({
        id: record.id,
        account: record.account,
        profile: record.profile,
        name: record.name,
        prefix: record.prefix,
        createdAt: record.createdAt,
        ...changesOf(record),
      })
      .onConflictDoNothing()
      .returning({ id: fileImports.id });
    return inserted.length === 1;
  }

  /** One transaction: the finished import goes, the new one takes its name (the unique index holds throughout). */
  async replace(previous: FileStatusRecord, next: FileStatusRecord): Promise<boolean> {
    if (previous.account !== next.account || previous.profile !== next.profile || previous.name !== next.name)
      return false;
    const [removed, inserted] = await this.db.batch([
      this.db
        .delete(fileImports)
        .where(and(eq(fileImports.id, previous.id), eq(fileImports.finished, true)))
        .returning({ id: fileImports.id }),
      this.db
        .insert(fileImports)
        .values({
          id: next.id,
          account: next.account,
          profile: next.profile,
          name: next.name,
          prefix: next.prefix,
          createdAt: next.createdAt,
          ...changesOf(next),
        })
        .onConflictDoNothing()
        .returning({ id: fileImports.id }),
    ]);
    return removed.length === 1 && inserted.length === 1;
  }

  async find(account: string, profile: string, name: string): Promise<FileStatusRecord | null> {
    const rows = await this.db
      .select()
      .from(fileImports)
      .where(and(eq(fileImports.account, account), eq(fileImports.profile, profile), eq(fileImports.name, name)))
      .limit(1);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async update(record: FileStatusRecord): Promise<void> {
    await this.db.update(fileImports).set(changesOf(record)).where(eq(fileImports.id, record.id));
  }

  /**
   * DEC-FIL-06: fileMatchesPrefix in SQL. The prefix groups are read through `files_prefix_idx` (one value
   * for a prefix without `_`); the name must then start with `<prefix>_` (instr, case-sensitive unlike
   * LIKE) and not be `<prefix>_.csv` (every name ends in .csv, DEC-FIL-04: so it has an id).
   */
  private inRange(account: string, profile: string, prefix: string, from: number, to: number) {
    const groups = prefixGroupsOfQuery(prefix);
    return and(
      eq(fileImports.account, account),
      eq(fileImports.profile, profile),
      groups.length === 1 ? eq(fileImports.prefix, prefix) : inArray(fileImports.prefix, groups),
      gte(fileImports.createdAt, from),
      lte(fileImports.createdAt, to),
      sql`instr(${fileImports.name}, ${`${prefix}_`}) = 1`,
      ne(fileImports.name, `${prefix}_${csvExtension}`),
    );
  }

  async count(account: string, profile: string, prefix: string, from: number, to: number): Promise<number> {
    const rows = await this.db
      .select({ n: count() })
      .from(fileImports)
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
      .select()
      .from(fileImports)
      .where(this.inRange(account, profile, prefix, from, to))
      .orderBy(asc(fileImports.createdAt), asc(fileImports.id));
    return rows.map(toRecord);
  }

  /** Read backwards through `files_list_idx`: no more rows than the limit. */
  async list(account: string, profile: string, limit: number): Promise<FileStatusRecord[]> {
    const rows = await this.db
      .select()
      .from(fileImports)
      .where(and(eq(fileImports.account, account), eq(fileImports.profile, profile)))
      .orderBy(desc(fileImports.createdAt), desc(fileImports.id))
      .limit(Math.max(0, limit));
    return rows.map(toRecord);
  }

  async unfinished(): Promise<FileStatusRecord[]> {
    const rows = await this.db
      .select()
      .from(fileImports)
      .where(eq(fileImports.finished, false))
      .orderBy(asc(fileImports.createdAt), asc(fileImports.id));
    return rows.map(toRecord);
  }
}
