/**
 * File names of imports (FIL-10, DEC-FIL-04, LIM file name length): `<prefix>_<unique date identifier>.csv`,
 * at most 150 characters including `.csv`.
 */
import { type ManagementError, managementError } from "../errors/index.ts";
import { err, ok, type Result } from "../result.ts";

/** DEC-FIL-04, FIL-ERR-05: the longest file name, `.csv` included. */
export const maxFileNameLength = 150;
/** FIL-ERR-01: the longest prefix of count and search. */
export const maxFilePrefixLength = 150;
export const csvExtension = ".csv";

/**
 * The characters a file name may hold: it becomes a file of the data directory and a path segment of the
 * status API, so only letters, digits and `_ - ~ .`, never starting with a period.
 */
const safeName = /^[A-Za-z0-9_~-][A-Za-z0-9_.~-]*$/;

/** FIL-ERR-05, DEC-FIL-04: a single file status call names at most 150 characters (`.csv` included). */
export function checkStatusFileName(name: string): Result<string, ManagementError> {
  if (name.length > maxFileNameLength) {
    return err(
      managementError("invalidParameter", {
        parameter: "fileName",
        problem: `longer than ${maxFileNameLength} characters`,
      }),
    );
  }
  return ok(name);
}

/**
 * DEC-FIL-04, DEC-OPS-04, FIL-10: a name a file can be imported under: at most 150 characters, of the shape
 * `<prefix>_<id>.csv` (text on both sides of an `_`), of safe characters. Whether its prefix is known is
 * decided later, by the import (FIL-09); a name of no prefix group at all is refused here, so that a dropped
 * `report.csv` goes to `rejected/` instead of being imported only to fail.
 */
export function checkImportFileName(name: string): Result<string, ManagementError> {
  const invalid = (problem: string) => err(managementError("invalidParameter", { parameter: "fileName", problem }));
  if (name.length > maxFileNameLength) return invalid(`longer than ${maxFileNameLength} characters`);
  if (!name.endsWith(csvExtension) || prefixOfFileName(name, []) === "") return invalid("must be <prefix>_<id>.csv");
  if (!safeName.test(name))
    return invalid("may contain only the characters A-Z a-z 0-9 _ - ~ . and must not start with a period");
  return ok(name);
}

/**
 * FIL-10, DEC-FIL-06: the prefix group of a file name. Of the prefixes given (the profile's file
 * definitions), the longest `p` with the name `p_<id>.csv` (a non-empty id); else the text before the
 * first `_` (a prefix no definition has). A name of no such shape (`x.csv`, `x_.csv`, `_x.csv`) is in no
 * group: "" (which no count or search asks for).
 */
export function prefixOfFileName(name: string, knownPrefixes: readonly string[]): string {
  const stem = name.endsWith(csvExtension) ? name.slice(0, -csvExtension.length) : name;
  let best: string | null = null;
  for (const prefix of knownPrefixes) {
    if (
      stem.length > prefix.length + 1 &&
      stem.startsWith(`${prefix}_`) &&
      (best === null || prefix.length > best.length)
    )
      best = prefix;
  }
  if (best !== null) return best;
  const underscore = stem.indexOf("_");
  return underscore > 0 && underscore < stem.length - 1 ? stem.slice(0, underscore) : "";
}
