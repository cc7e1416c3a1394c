/**
 * The name rule shared by data layer ids, account and profile names and collection data sources.
 * Account and profile names are ASCII by this rule, so a length in code units is a length in characters.
 */

const allowedName = /^[A-Za-z0-9_~-]+$/;

/** DEC-DLE-02: the most characters account + profile + dl_id (or svc_datasource) may have together. */
export const maxCombinedNameLength = 250;

/** DEC-DLE-02, DLE-ERR-03, COL-09: a non-empty name of only `A-Z a-z 0-9 _ - ~`. */
export function isAllowedName(name: string): boolean {
  return allowedName.test(name);
}

/** DEC-DLE-02, DLE-ERR-02, COL-09: the names' lengths added up, without separators, are at most 250. */
export function fitsCombinedLength(...names: readonly string[]): boolean {
  let total = 0;
  for (const name of names) total += name.length;
  return total <= maxCombinedNameLength;
}
