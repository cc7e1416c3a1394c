import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { bytea, millis } from "./columns.ts";

/**
 * DEC-FIL-05, DEC-OPS-04: the files received for import, in the database so that every node reads them and
 * any node can take an import over. One row per copy of a file: a receipt writes its copy part by part as the
 * bytes come (`complete` false until the last part is stored), and a rewrite (PRV-09) writes a new copy in one
 * transaction. At most one complete copy per name: the one the import reads.
 */
export const receivedFiles = pgTable(
  "received_files",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    name: text("name").notNull(),
    complete: boolean("complete").notNull(),
    size: millis("size").notNull(),
    parts: integer("parts").notNull(),
  },
  (table) => [
    uniqueIndex("received_files_complete_idx")
      .on(table.account, table.profile, table.name)
      .where(sql`${table.complete}`),
    index("received_files_name_idx").on(table.account, table.profile, table.name),
  ],
);

/** The bytes of each copy, in parts of about 1 MiB numbered from 0, removed with their copy. */
export const receivedFileChunks = pgTable(
  "received_file_chunks",
  {
    fileId: millis("file_id").notNull(),
    part: integer("part").notNull(),
    bytes: bytea("bytes").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.fileId, table.part] }),
    foreignKey({ columns: [table.fileId], foreignColumns: [receivedFiles.id] }).onDelete("cascade"),
  ],
);
