/**
 * The query parameters of file count and file search (FIL-03, FIL-05, FIL-11, FIL-ERR-01..04, DEC-FIL-06).
 */
import { managementError, type ManagementError } from "../errors/index.ts";
import { err, ok, type Result } from "../result.ts";
import { maxFilePrefixLength } from "./file-name.rules.ts";

/** A validated count or search: files of one prefix created in [from, to], both inclusive. */
export interface FileQuery {
  readonly prefix: string;
  readonly from: number;
  readonly to: number;
}

/**
 * FIL-11, DEC-FIL-06: `YYYY-MM-DDTHH:MM`, optionally `:SS` and `.s` to `.sss`, then `Z`, `±hhmm`, `±hh:mm`
 * or `±hh`. A space where the sign of the offset belongs is read as `+`: an unencoded `+` in a query
 * string arrives as a space.
 */
const dateTime = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:(Z)|([+\- ])(\d{2})(?::?(\d{2}))?)$/;

/** FIL-11, DEC-FIL-06: the epoch milliseconds a date parameter names, or null when it has another shape or names no real time. */
export function parseQueryDate(text: string): number | null {
  const match = dateTime.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction, zulu, sign, offsetHours, offsetMinutes] = match;
  const numbers = [year, month, day, hour, minute].map(Number) as [number, number, number, number, number];
  const [y, mo, d, h, mi] = numbers;
  const s = Number(second ?? "0");
  const ms = Number((fraction ?? "0").padEnd(3, "0"));
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate() || h > 23 || mi > 59 || s > 59) return null;
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
  if (filePrefix.length > maxFilePrefixLength) return err(invalid("filePrefix", `longer than ${maxFilePrefixLength} characters`));
  if (startDate === undefined || startDate === "") return err(invalid("startDate", "missing"));
  if (endDate === undefined || endDate === "") return err(invalid("endDate", "missing"));
  const from = parseQueryDate(startDate);
  if (from === null) return err(invalid("startDate", dateProblem));
  const to = parseQueryDate(endDate);
  if (to === null) return err(invalid("endDate", dateProblem));
  if (to < from) return err(invalid("endDate", "before startDate"));
  return ok({ prefix: filePrefix, from, to });
}
