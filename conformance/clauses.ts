/**
 * The catalogue these scenarios are checked against: every clause ID of the interface (clauses.md) and every
 * decision ID (decisions.md), with its section and text, as `bun tools/sync-clauses.ts` wrote it into
 * clauses.json. The reports list coverage against it, ID by ID.
 */
import type { ClauseEntry } from "../harness/clauses.ts";
import catalogueJson from "./clauses.json" with { type: "json" };

export const clauseCatalogue: readonly ClauseEntry[] = catalogueJson as ClauseEntry[];

const clauseIds = new Set(clauseCatalogue.map((entry) => entry.id));

export function isKnownClause(id: string): boolean {
  return clauseIds.has(id);
}
