import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { foreignKey, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { AttributeType, ConditionGroups, Enrichment, FileColumn } from "../../core/config/index.ts";
import { profiles } from "./tenancy.schema.ts";

/**
 * The configuration of a profile, one table per kind of definition. Every row belongs to one profile
 * (account, profile) and is keyed inside it by the definition's id; `position` keeps the order the
 * configuration gave, so a profile reads back exactly as it was written. putProfile replaces all the
 * rows of a profile in one transaction. Nested structures that are only ever read whole are JSON text.
 */

function profileColumns() {
  return {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    position: integer("position").notNull(),
  };
}

interface ProfileChildColumns {
  readonly account: SQLiteColumn;
  readonly profile: SQLiteColumn;
  readonly position: SQLiteColumn;
}

function profileConstraints(tableName: string, table: ProfileChildColumns, key: SQLiteColumn) {
  return [
    primaryKey({ columns: [table.account, table.profile, key] }),
    foreignKey({
      columns: [table.account, table.profile],
      foreignColumns: [profiles.account, profiles.name],
    }).onDelete("cascade"),
    uniqueIndex(`${tableName}_position_idx`).on(table.account, table.profile, table.position),
  ];
}

export const visitorIdAttributes = sqliteTable(
  "visitor_id_attributes",
  {
    ...profileColumns(),
    id: integer("id").notNull(),
    name: text("name").notNull(),
    parameter: text("parameter").notNull(),
  },
  (table) => profileConstraints("visitor_id_attributes", table, table.id),
);

export const attributes = sqliteTable(
  "attributes",
  {
    ...profileColumns(),
    id: integer("id").notNull(),
    name: text("name").notNull(),
    type: text("type").$type<AttributeType>().notNull(),
    pii: integer("pii", { mode: "boolean" }).notNull(),
    enrichments: text("enrichments", { mode: "json" }).$type<readonly Enrichment[]>().notNull(),
  },
  (table) => profileConstraints("attributes", table, table.id),
);

export const audiences = sqliteTable(
  "audiences",
  {
    ...profileColumns(),
    id: integer("id").notNull(),
    name: text("name").notNull(),
    conditions: text("conditions", { mode: "json" }).$type<ConditionGroups>().notNull(),
  },
  (table) => profileConstraints("audiences", table, table.id),
);

export const engines = sqliteTable(
  "engines",
  {
    ...profileColumns(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    allowedDomains: text("allowed_domains", { mode: "json" }).$type<readonly string[]>().notNull(),
    keys: text("keys").$type<"names" | "ids">().notNull(),
    audiences: text("audiences", { mode: "json" }).$type<readonly number[]>().notNull(),
    badges: text("badges", { mode: "json" }).$type<readonly number[]>().notNull(),
    attributes: text("attributes", { mode: "json" }).$type<readonly number[]>().notNull(),
  },
  (table) => profileConstraints("engines", table, table.id),
);

/** A file definition is identified by its prefix (FIL-10: files are dispatched by prefix). */
export const fileDefinitions = sqliteTable(
  "file_definitions",
  {
    ...profileColumns(),
    prefix: text("prefix").notNull(),
    event: text("event").notNull(),
    visitorIdColumn: text("visitor_id_column").notNull(),
    visitorIdAttribute: integer("visitor_id_attribute").notNull(),
    columns: text("columns", { mode: "json" }).$type<readonly FileColumn[]>().notNull(),
  },
  (table) => profileConstraints("file_definitions", table, table.prefix),
);
