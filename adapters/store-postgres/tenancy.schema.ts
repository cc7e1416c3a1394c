import { tenancyTables } from "../store-sql/tenancy.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";

/** The tables of adapters/store-sql/tenancy.schema.ts in PostgreSQL's columns. */
export const { accounts, profiles, users, userGrants, apiKeys } = tenancyTables(postgresColumns);
