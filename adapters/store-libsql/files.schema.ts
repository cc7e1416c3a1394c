import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { FileSourceType } from "../../core/ports/index.ts";

/**
 * FIL-*, DEC-FIL-03..06: one row per file import. A file name is imported once per account and profile
 * (DEC-FIL-04: the unique index); count and search read `files_prefix_idx`; import workers find the
 * unfinished imports through `files_unfinished_idx`; the list of a profile's imports reads `files_list_idx`. `status` is the JSON of the history, `progress` the JSON of
 * where an interrupted import resumes.
 */
export const fileImports = sqliteTable(
  "file_imports",
  {
    id: text("id").primaryKey(),
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    createdAt: integer("created_at").notNull(),
    nodeId: text("node_id").notNull(),
    size: integer("size").notNull(),
    checksum: text("checksum").notNull(),
    sourceType: text("source_type").$type<FileSourceType>().notNull(),
    sourceHost: text("source_host").notNull(),
    lineCount: integer("line_count").notNull(),
    status: text("status").notNull(),
    finished: integer("finished", { mode: "boolean" }).notNull(),
    progress: text("progress"),
  },
  (table) => [
    uniqueIndex("files_name_idx").on(table.account, table.profile, table.name),
    index("files_prefix_idx").on(table.account, table.profile, table.prefix, table.createdAt),
    index("files_unfinished_idx").on(table.finished, table.createdAt),
    // The console's list of a profile's imports, newest first.
    index("files_list_idx").on(table.account, table.profile, table.createdAt, table.id),
  ],
);
