import { profileConfigTables } from "../store-sql/profile-config.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";
import { profiles } from "./tenancy.schema.ts";

/** The tables of adapters/store-sql/profile-config.schema.ts in PostgreSQL's columns. */
export const { visitorIdAttributes, attributes, audiences, engines, fileDefinitions } = profileConfigTables(
  postgresColumns,
  profiles,
);
