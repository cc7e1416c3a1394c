import type { Table } from "drizzle-orm";
import type { ErasedRecords } from "../../core/ports/index.ts";

/** A table that Stores.eraseAll empties, and what it counts the table's rows as (if anything). */
export interface ErasedTable<T extends Table> {
  readonly table: T;
  readonly counted?: Exclude<keyof ErasedRecords, "settings">;
}

type Counted = ErasedTable<Table>["counted"];

/**
 * Every table of a store's schema but `settings` (which eraseAll empties but for the entries it keeps), the rows
 * that refer to another table's before that table's (ON DELETE CASCADE would take them anyway, uncounted). The
 * received files are PostgreSQL's only: the libSQL store keeps them in the data directory.
 */
const erasureOrder: ReadonlyArray<readonly [string, Counted?]> = [
  ["events", "events"],
  ["eventVisitors"],
  ["visitorMembers"],
  ["visitorMerges"],
  ["visitorProfiles", "visitorProfiles"],
  ["engineStates"],
  ["privacyAudit"],
  ["privacyTransactions", "privacyTransactions"],
  ["fileImports", "fileImports"],
  ["receivedFileChunks"],
  ["receivedFiles", "receivedFiles"],
  ["dataLayerChanges"],
  ["dataLayers", "dataLayers"],
  ["revisionTargets"],
  ["revisions", "revisions"],
  ["sessions", "sessions"],
  ["lockouts", "lockouts"],
  ["apiKeys", "apiKeys"],
  ["userGrants"],
  ["users", "users"],
  ["visitorIdAttributes"],
  ["attributes"],
  ["audiences"],
  ["engines"],
  ["fileDefinitions"],
  ["profiles", "profiles"],
  ["accounts", "accounts"],
  ["collectRateCounts"],
];

/**
 * The tables of a store's schema module (its schema.ts, by their exported names) in the order Stores.eraseAll
 * empties them. A table the order does not name is left out: each store's test compares the list with the
 * schema's tables, so a table added to the schema fails it until it is named above.
 */
export function inErasureOrder<T extends Table>(schema: Readonly<Record<string, unknown>>): ErasedTable<T>[] {
  return erasureOrder.flatMap(([name, counted]) => {
    const table = schema[name] as T | undefined;
    if (!table) return [];
    return [counted ? { table, counted } : { table }];
  });
}
