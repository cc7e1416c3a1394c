import { tenancyTables } from "../store-sql/tenancy.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";

/** The tables of adapters/store-sql/tenancy.schema.ts in SQLite's columns. */
export const { accounts, profiles, users, userGrants, apiKeys } = tenancyTables(libsqlColumns);
