import type { PgColumn } from "drizzle-orm/pg-core";
import { boolean, foreignKey, integer, json, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { AttributeType, ConditionGroups, Enrichment, FileColumn } from "../../core/config/index.ts";
import { profiles } from "./tenancy.schema.ts";

/** A profile's configuration, one table per kind of entry, as in the libSQL store. */

function profileColumns() {
  return {
    account: text("account").notNull(),
    profile: text("profile").notNull(),
    position: integer("position").notNull(),
  };
}

interface ProfileChildColumns {
  readonly account: PgColumn;
  readonly profile: PgColumn;
  readonly position: PgColumn;
}

function profileConstraints(tableName: string, table: ProfileChildColumns, key: PgColumn) {
  return [
    primaryKey({ columns: [table.account, table.profile, key] }),
    foreignKey({
      columns: [table.account, table.profile],
      foreignColumns: [profiles.account, profiles.name],
    }).onDelete("cascade"),
    uniqueIndex(`${tableName}_position_idx`).on(table.account, table.profile, table.position),
  ];
}

export const visitorIdAttributes = pgTable(
  "visitor_id_attributes",
  {
    ...profileColumns(),
    id: integer("id").notNull(),
    name: text("name").notNull(),
    parameter: text("parameter").notNull(),
  },
  (table) => profileConstraints("visitor_id_attributes", table, table.id),
);

export const attributes = pgTable(
  "attributes",
  {
    ...profileColumns(),
    id: integer("id").notNull(),
    name: text("name").notNull(),
    type: text("type").$type<AttributeType>().notNull(),
    pii: boolean("pii").notNull(),
    enrichments: json("enrichments").$type<readonly Enrichment[]>().notNull(),
  },
  (table) => profileConstraints("attributes", table, table.id),
);

export const audiences = pgTable(
  "audiences",
  {
    ...profileColumns(),
    id: integer("id").notNull(),
    name: text("name").notNull(),
    conditions: json("conditions").$type<ConditionGroups>().notNull(),
  },
  (table) => profileConstraints("audiences", table, table.id),
);

export const engines = pgTable(
  "engines",
  {
    ...profileColumns(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    enabled: boolean("enabled").notNull(),
    allowedDomains: json("allowed_domains").$type<readonly string[]>().notNull(),
    keys: text("keys").$type<"names" | "ids">().notNull(),
    audiences: json("audiences").$type<readonly number[]>().notNull(),
    badges: json("badges").$type<readonly number[]>().notNull(),
    attributes: json("attributes").$type<readonly number[]>().notNull(),
  },
  (table) => profileConstraints("engines", table, table.id),
);

export const fileDefinitions = pgTable(
  "file_definitions",
  {
    ...profileColumns(),
    prefix: text("prefix").notNull(),
    event: text("event").notNull(),
    visitorIdColumn: text("visitor_id_column").notNull(),
    visitorIdAttribute: integer("visitor_id_attribute").notNull(),
    columns: json("columns").$type<readonly FileColumn[]>().notNull(),
  },
  (table) => profileConstraints("file_definitions", table, table.prefix),
);
