/**
 * Numbers and dates written as text, read one way wherever the service reads them: event parameters and
 * enrichment values (core/profiles), condition values (the configuration loader) and imported file columns
 * (core/files). Only plain decimal and ISO 8601 forms are taken, so a value never means something the
 * caller did not write (`0x10` is not 16, `Jan 1` is not a date) and never depends on the process's time zone.
 */

/**
 * DEC-PRO-01, DEC-FIL-04: decimal number text: an optional sign, digits with an optional fraction (or a
 * fraction alone), an optional exponent. No hex, binary or octal prefixes, no `Infinity`, no separators.
 */
export const decimalNumberText = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** DEC-PRO-01: the finite number decimal text stands for (spaces around it allowed), or null. */
export function readDecimalNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!decimalNumberText.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

/**
 * `YYYY-MM-DD`, optionally followed by `T` (or a space) and `HH:mm[:ss[.fraction]]` with an optional zone:
 * `Z`, `±HH:MM` or `±HHMM`.
 */
const isoDateTime =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:(Z)|([+-])(\d{2}):?(\d{2}))?)?$/;

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/**
 * MOM-03, DEC-MOM-04: the epoch milliseconds of ISO 8601 date text (spaces around it allowed), or null. A
 * time without a zone is UTC, as in imported files (parseDateWithPattern); a date alone is its midnight
 * UTC. Digits of a fraction past milliseconds are dropped. A day or time that does not exist (2024-02-30,
 * 24:00, a zone of +24:00) is not a date. Computed in UTC only, so the process's time zone never changes
 * the answer.
 */
export function readIsoDateTime(text: string): number | null {
  const match = isoDateTime.exec(text.trim());
  if (!match) return null;
  const [
    ,
    year,
    month,
    day,
    hour = "0",
    minute = "0",
    second = "0",
    fraction = "",
    ,
    sign,
    offsetHours = "0",
    offsetMinutes = "0",
  ] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [oh, om] = [Number(offsetHours), Number(offsetMinutes)];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59 || oh > 23 || om > 59)
    return null;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, Number(fraction.slice(0, 3).padEnd(3, "0")));
  const offset = (sign === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  return date.getTime() - offset;
}

/**
 * DEC-COL-09: a JSON number as the text of a visitor ID (or of an event name or trace id), or null when it is not
 * one: not finite, or a whole number past 2^53, which JSON.parse has already rounded (12345678901234567890 arrives as 12345678901234567000), so its
 * text is no longer what the client sent. Such an ID must be sent as a string.
 */
export function numberAsIdText(value: unknown): string | null {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  return Number.isInteger(value) && !Number.isSafeInteger(value) ? null : String(value);
}
