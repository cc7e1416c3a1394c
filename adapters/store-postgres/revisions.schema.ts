import { revisionsTables } from "../store-sql/revisions.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";
import { profiles } from "./tenancy.schema.ts";

/** The tables of adapters/store-sql/revisions.schema.ts in PostgreSQL's columns. */
export const { revisions, revisionTargets } = revisionsTables(postgresColumns, profiles);
