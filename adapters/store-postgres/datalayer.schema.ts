import { datalayerTables } from "../store-sql/datalayer.schema.ts";
import { postgresColumns } from "./postgres.dialect.ts";

/** The tables of adapters/store-sql/datalayer.schema.ts in PostgreSQL's columns. */
export const { dataLayers, dataLayerChanges } = datalayerTables(postgresColumns);
