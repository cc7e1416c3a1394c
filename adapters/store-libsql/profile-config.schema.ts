import { profileConfigTables } from "../store-sql/profile-config.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";
import { profiles } from "./tenancy.schema.ts";

/** The tables of adapters/store-sql/profile-config.schema.ts in SQLite's columns. */
export const { visitorIdAttributes, attributes, audiences, engines, fileDefinitions } = profileConfigTables(
  libsqlColumns,
  profiles,
);
