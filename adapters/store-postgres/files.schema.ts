import { boolean, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { FileSourceType } from "../../core/ports/index.ts";
import { millis } from "./columns.ts";

/** FIL-*, DEC-FIL-*: one row per file received for import, with its status. */
export const fileImports = pgTable(
  "file_imports",
  {
    id: text("id").primaryKey(),
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    createdAt: millis("created_at").notNull(),
    nodeId: text("node_id").notNull(),
    size: millis("size").notNull(),
    checksum: text("checksum").notNull(),
    sourceType: text("source_type").$type<FileSourceType>().notNull(),
    sourceHost: text("source_host").notNull(),
    lineCount: millis("line_count").notNull(),
    status: text("status").notNull(),
    finished: boolean("finished").notNull(),
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
