import type { FileSourceType } from "../../core/ports/index.ts";
import type { ColumnKit, ColumnTypes } from "./sql-columns.ts";

/**
 * FIL-*, DEC-FIL-03..06: one row per file import. A file name is imported once per account and profile
 * (DEC-FIL-04: the unique index); count and search read `files_prefix_idx`; import workers find the unfinished
 * imports through `files_unfinished_idx`; the list of a profile's imports reads `files_list_idx`. `status` is
 * the JSON of the history, `progress` the JSON of where an interrupted import resumes.
 */
export function filesTable<D extends ColumnTypes>(c: ColumnKit<D>) {
  return c.table(
    "file_imports",
    {
      id: c.textKey("id"),
      account: c.text("account"),
      profile: c.text("profile"),
      name: c.text("name"),
      prefix: c.text("prefix"),
      createdAt: c.int64("created_at"),
      nodeId: c.text("node_id"),
      size: c.int64("size"),
      checksum: c.text("checksum"),
      sourceType: c.text<FileSourceType>("source_type"),
      sourceHost: c.text("source_host"),
      lineCount: c.int64("line_count"),
      status: c.text("status"),
      finished: c.bool("finished"),
      progress: c.textOrNull("progress"),
    },
    (table) => [
      c.uniqueIndex("files_name_idx", [table.account, table.profile, table.name]),
      c.index("files_prefix_idx", [table.account, table.profile, table.prefix, table.createdAt]),
      c.index("files_unfinished_idx", [table.finished, table.createdAt]),
      // The console's list of a profile's imports, newest first.
      c.index("files_list_idx", [table.account, table.profile, table.createdAt, table.id]),
    ],
  );
}
