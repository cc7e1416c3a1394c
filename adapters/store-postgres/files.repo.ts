import { and, eq, TransactionRollbackError } from "drizzle-orm";
import type { FileStatusRecord } from "../../core/ports/index.ts";
import { fileImportRowOf, SqlFileStatusRepo } from "../store-sql/files.repo.ts";
import type { PgDatabase } from "./database.ts";
import { fileImports } from "./files.schema.ts";
import { postgresDialect } from "./postgres.dialect.ts";

/** FIL-*, DEC-FIL-03..06: the file imports of every node (adapters/store-sql/files.repo.ts), in the database they share. */
export class PgFileStatusRepo extends SqlFileStatusRepo {
  constructor(private readonly pg: PgDatabase) {
    super(pg, fileImports, postgresDialect);
  }

  /**
   * One transaction: the finished import goes, the new one takes its name. Of two nodes replacing the same
   * import, the second one's DELETE waits for the first's row lock and then finds the row gone: it answers
   * false. When the new import cannot be stored the removal is rolled back, so false always changes nothing.
   */
  async replace(previous: FileStatusRecord, next: FileStatusRecord): Promise<boolean> {
    if (previous.account !== next.account || previous.profile !== next.profile || previous.name !== next.name)
      return false;
    try {
      return await this.pg.transaction(async (tx) => {
        const removed = await tx
          .delete(fileImports)
          .where(and(eq(fileImports.id, previous.id), eq(fileImports.finished, true)))
          .returning({ id: fileImports.id });
        if (removed.length === 0) return false;
        const inserted = await tx
          .insert(fileImports)
          .values(fileImportRowOf(next))
          .onConflictDoNothing()
          .returning({ id: fileImports.id });
        if (inserted.length === 0) tx.rollback();
        return true;
      });
    } catch (error) {
      if (error instanceof TransactionRollbackError) return false;
      throw error;
    }
  }
}
