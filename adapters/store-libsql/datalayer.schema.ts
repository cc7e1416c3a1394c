import { datalayerTables } from "../store-sql/datalayer.schema.ts";
import { libsqlColumns } from "./libsql.dialect.ts";

/** The tables of adapters/store-sql/datalayer.schema.ts in SQLite's columns. */
export const { dataLayers, dataLayerChanges } = datalayerTables(libsqlColumns);
