import { and, eq } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { FileStatusRecord } from "../../core/ports/index.ts";
import { fileImportRowOf, SqlFileStatusRepo } from "../store-sql/files.repo.ts";
import { fileImports } from "./files.schema.ts";
import { libsqlDialect } from "./libsql.dialect.ts";

/** FIL-*, DEC-FIL-03..06: the file imports in libSQL (adapters/store-sql/files.repo.ts), replaced in one batch. */
export class LibsqlFileStatusRepo extends SqlFileStatusRepo {
  constructor(private readonly libsql: LibSQLDatabase) {
    super(libsql, fileImports, libsqlDialect);
  }

  /** One transaction: the finished import goes, the new one takes its name (the unique index holds throughout). */
  async replace(previous: FileStatusRecord, next: FileStatusRecord): Promise<boolean> {
    if (previous.account !== next.account || previous.profile !== next.profile || previous.name !== next.name)
      return false;
    const [removed, inserted] = await this.libsql.batch([
      this.libsql
        .delete(fileImports)
        .where(and(eq(fileImports.id, previous.id), eq(fileImports.finished, true)))
        .returning({ id: fileImports.id }),
      this.libsql
        .insert(fileImports)
        .values(fileImportRowOf(next))
        .onConflictDoNothing()
        .returning({ id: fileImports.id }),
    ]);
    return removed.length === 1 && inserted.length === 1;
  }
}
