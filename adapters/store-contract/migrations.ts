import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The statements of one committed migration (drizzle-kit's `--> statement-breakpoint` between them), to build a
 * database as an earlier version left it. `migrations` is a store's migrations folder.
 */
export function migrationStatements(migrations: URL, file: string): string[] {
  return readFileSync(join(fileURLToPath(migrations), file), "utf8")
    .split("--> statement-breakpoint")
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}
