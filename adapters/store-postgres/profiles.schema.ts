import { profilesTables } from "../store-sql/profiles.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";

/** The tables of adapters/store-sql/profiles.schema.ts in PostgreSQL's columns. */
export const { visitorProfiles, visitorMembers, visitorMerges, engineStates } = profilesTables(postgresColumns);
