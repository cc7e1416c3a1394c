import type { AttributeType, ConditionGroups, Enrichment, FileColumn } from "../../core/config/index.ts";
import type { ColumnKit, ColumnTypes, SchemaColumn } from "./sql-columns.ts";

/**
 * The configuration of a profile, one table per kind of definition. Every row belongs to one profile
 * (account, profile) and is keyed inside it by the definition's id; `position` keeps the order the
 * configuration gave, so a profile reads back exactly as it was written. putProfile replaces all the
 * rows of a profile in one transaction. Nested structures that are only ever read whole are JSON.
 */
export function profileConfigTables<D extends ColumnTypes>(
  c: ColumnKit<D>,
  profiles: { readonly account: SchemaColumn; readonly name: SchemaColumn },
) {
  const profileColumns = () => ({
    account: c.text("account"),
    profile: c.text("profile"),
    position: c.int("position"),
  });

  function profileConstraints(
    tableName: string,
    table: { readonly account: SchemaColumn; readonly profile: SchemaColumn; readonly position: SchemaColumn },
    key: SchemaColumn,
  ) {
    return [
      c.primaryKey([table.account, table.profile, key]),
      c.foreignKeyOnDeleteCascade([table.account, table.profile], [profiles.account, profiles.name]),
      c.uniqueIndex(`${tableName}_position_idx`, [table.account, table.profile, table.position]),
    ];
  }

  const visitorIdAttributes = c.table(
    "visitor_id_attributes",
    {
      ...profileColumns(),
      id: c.int("id"),
      name: c.text("name"),
      parameter: c.text("parameter"),
    },
    (table) => profileConstraints("visitor_id_attributes", table, table.id),
  );

  const attributes = c.table(
    "attributes",
    {
      ...profileColumns(),
      id: c.int("id"),
      name: c.text("name"),
      type: c.text<AttributeType>("type"),
      pii: c.bool("pii"),
      enrichments: c.json<readonly Enrichment[]>("enrichments"),
    },
    (table) => profileConstraints("attributes", table, table.id),
  );

  const audiences = c.table(
    "audiences",
    {
      ...profileColumns(),
      id: c.int("id"),
      name: c.text("name"),
      conditions: c.json<ConditionGroups>("conditions"),
    },
    (table) => profileConstraints("audiences", table, table.id),
  );

  const engines = c.table(
    "engines",
    {
      ...profileColumns(),
      id: c.text("id"),
      name: c.text("name"),
      enabled: c.bool("enabled"),
      allowedDomains: c.json<readonly string[]>("allowed_domains"),
      keys: c.text<"names" | "ids">("keys"),
      audiences: c.json<readonly number[]>("audiences"),
      badges: c.json<readonly number[]>("badges"),
      attributes: c.json<readonly number[]>("attributes"),
    },
    (table) => profileConstraints("engines", table, table.id),
  );

  /** A file definition is identified by its prefix (FIL-10: files are dispatched by prefix). */
  const fileDefinitions = c.table(
    "file_definitions",
    {
      ...profileColumns(),
      prefix: c.text("prefix"),
      event: c.text("event"),
      visitorIdColumn: c.text("visitor_id_column"),
      visitorIdAttribute: c.int("visitor_id_attribute"),
      columns: c.json<readonly FileColumn[]>("columns"),
    },
    (table) => profileConstraints("file_definitions", table, table.prefix),
  );

  return { visitorIdAttributes, attributes, audiences, engines, fileDefinitions };
}
