import { profilesTables } from "../store-sql/profiles.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";

/** The tables of adapters/store-sql/profiles.schema.ts in SQLite's columns. */
export const { visitorProfiles, visitorMembers, visitorMerges, engineStates } = profilesTables(libsqlColumns);
