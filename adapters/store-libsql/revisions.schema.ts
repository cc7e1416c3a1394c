import { revisionsTables } from "../store-sql/revisions.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";
import { profiles } from "./tenancy.schema.ts";

/** The tables of adapters/store-sql/revisions.schema.ts in SQLite's columns. */
export const { revisions, revisionTargets } = revisionsTables(libsqlColumns, profiles);
