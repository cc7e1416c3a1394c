/**
 * The query parameters of file count and file search (FIL-03, FIL-05, FIL-11, FIL-ERR-01..04, DEC-FIL-06).
 */
import { type ManagementError, managementError } from "../errors/index.ts";
import { err, ok, type Result } from "../result.ts";
import { csvExtension, maxFilePrefixLength } from "./file-name.rules.ts";

/** A validated count or search: files of one prefix created in [from, to], both inclusive. */
export interface FileQuery {
  readonly prefix: string;
  readonly from: number;
  readonly to: number;
}

/**
 * FIL-11, DEC-FIL-06: `YYYY-MM-DDTHH:MM`, optionally `:SS` and a fraction of one to nine digits, then `Z`,
 * `±hhmm`, `±hh:mm` or `±hh`. Fractions past milliseconds (Java's `Instant.toString()`, Python's
 * `isoformat()`) are cut to the millisecond; `t` and `z` may be lower case (RFC 3339). A space where the
 * sign of the offset belongs is read as `+`: an unencoded `+` in a query string arrives as a space.
 */
const dateTime =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)$/;

/** FIL-11, DEC-FIL-06: the epoch milliseconds a date parameter names, or null when it has another shape or names no real time. */
export function parseQueryDate(text: string): number | null {
  const match = dateTime.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction, zulu, sign, offsetHours, offsetMinutes] = match;
  const numbers = [year, month, day, hour, minute].map(Number) as [number, number, number, number, number];
  const [y, mo, d, h, mi] = numbers;
  const s = Number(second ?? "0");
  const ms = Number((fraction ?? "0").slice(0, 3).padEnd(3, "0"));
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate() || h > 23 || mi > 59 || s > 59)
    return null;
  let offset = 0;
  if (!zulu) {
    const oh = Number(offsetHours);
    const om = Number(offsetMinutes ?? "0");
    if (oh > 23 || om > 59) return null;
    offset = (sign === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  return date.getTime() - offset;
}

/** The raw query parameters of a count or search; a parameter given twice keeps its first value. */
export interface FileQueryParameters {
  readonly filePrefix?: string | undefined;
  readonly startDate?: string | undefined;
  readonly endDate?: string | undefined;
}

function invalid(parameter: "filePrefix" | "startDate" | "endDate", problem: string): ManagementError {
  return managementError("invalidParameter", { parameter, problem });
}

const dateProblem = "not a date-time such as 2024-01-31T09:30Z or 2024-01-31T09:30:00.000+0100";

/**
 * FIL-ERR-01..04, DEC-FIL-06: checks filePrefix, startDate and endDate in that order; the first problem
 * answers 400 1400 naming its parameter.
 */
export function validateFileQuery(parameters: FileQueryParameters): Result<FileQuery, ManagementError> {
  const { filePrefix, startDate, endDate } = parameters;
  if (filePrefix === undefined || filePrefix === "") return err(invalid("filePrefix", "missing"));
  if (filePrefix.length > maxFilePrefixLength)
    return err(invalid("filePrefix", `longer than ${maxFilePrefixLength} characters`));
  if (startDate === undefined || startDate === "") return err(invalid("startDate", "missing"));
  if (endDate === undefined || endDate === "") return err(invalid("endDate", "missing"));
  const from = parseQueryDate(startDate);
  if (from === null) return err(invalid("startDate", dateProblem));
  const to = parseQueryDate(endDate);
  if (to === null) return err(invalid("endDate", dateProblem));
  if (to < from) return err(invalid("endDate", "before startDate"));
  return ok({ prefix: filePrefix, from, to });
}

/**
 * DEC-FIL-06, FIL-10: the prefix groups (the `prefix` prefixOfFileName recorded) that a file of
 * `filePrefix=P` can be in: P itself, and each leading part of P that ends before a `_`. A file of a
 * definition is in its longest definition's group, which is P or such a part of it; a file of no definition
 * is in the group of the text before its first `_` (`web_orders_2024-03-01.csv` in `web`), which is the
 * first such part. For a prefix without `_`, the common case, that is P alone: one value of the index.
 */
export function prefixGroupsOfQuery(prefix: string): string[] {
  const groups: string[] = [];
  for (let at = prefix.indexOf("_", 1); at !== -1; at = prefix.indexOf("_", at + 1)) groups.push(prefix.slice(0, at));
  groups.push(prefix);
  return groups;
}

/** DEC-FIL-06: the name is `P_<id>.csv` with an id that is not empty (the shape prefixOfFileName reads). Case-sensitive. */
export function fileNameHasPrefix(name: string, prefix: string): boolean {
  const stem = name.endsWith(csvExtension) ? name.slice(0, -csvExtension.length) : name;
  return stem.length > prefix.length + 1 && stem.startsWith(`${prefix}_`);
}

/**
 * DEC-FIL-06: whether a recorded file is one a count or search of `prefix` finds: its name is
 * `<prefix>_<id>.csv` and it is in one of the prefix's groups. So a file of an unknown prefix holding `_` is
 * found by its whole prefix (`web_orders`) as well as by its first part (`web`), and a known prefix keeps
 * its own files only: `purchases` finds neither `purchasesX_1.csv` nor, when `purchases_x` is a
 * definition too, that definition's `purchases_x_1.csv`. Stores match the same in their own query language.
 */
export function fileMatchesPrefix(file: { readonly name: string; readonly prefix: string }, prefix: string): boolean {
  return prefixGroupsOfQuery(prefix).includes(file.prefix) && fileNameHasPrefix(file.name, prefix);
}
