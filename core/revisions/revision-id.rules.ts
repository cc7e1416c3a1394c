/**
 * Revision ids and creation times (REV-02, REV-04, DEC-REV-01). Times are epoch milliseconds on the
 * virtual clock, always read in UTC; nothing here reads a clock.
 */

const minuteMs = 60_000;
const weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
const revisionIdShape = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/;

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

/** The start of the UTC minute that holds `ms`. */
export function minuteOf(ms: number): number {
  return Math.floor(ms / minuteMs) * minuteMs;
}

/** REV-02, DEC-REV-01: the UTC minute of `ms` as `YYYYMMDDHHMM`. */
export function revisionIdOf(ms: number): string {
  const at = new Date(ms);
  return (
    pad(at.getUTCFullYear(), 4) +
    pad(at.getUTCMonth() + 1, 2) +
    pad(at.getUTCDate(), 2) +
    pad(at.getUTCHours(), 2) +
    pad(at.getUTCMinutes(), 2)
  );
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * REV-02, DEC-REV-03: the minute a revision id names, or null when the text is not twelve digits naming a
 * real UTC minute (a malformed id, which the API answers like an unknown one: 404 1260).
 */
export function parseRevisionId(id: string): number | null {
  const match = revisionIdShape.exec(id);
  if (!match) return null;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59)
    return null;
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, 0, 0);
  return at.getTime();
}

/**
 * DEC-REV-01: the publish minute's id; when that minute is taken, the next free minute after it.
 * `isTaken` says whether the profile already has a revision with that id.
 */
export function nextFreeRevisionId(nowMs: number, isTaken: (id: string) => boolean): string {
  let minute = minuteOf(nowMs);
  let id = revisionIdOf(minute);
  while (isTaken(id)) {
    minute += minuteMs;
    id = revisionIdOf(minute);
  }
  return id;
}

/**
 * REV-04: `<weekday> YYYY.MM.DD HH:MM GMT` in UTC, with the three-letter English weekday the vendor's
 * examples show (`Tue 2017.12.13 19:54 GMT`).
 */
export function formatTimeCreated(ms: number): string {
  const at = new Date(ms);
  const date = `${pad(at.getUTCFullYear(), 4)}.${pad(at.getUTCMonth() + 1, 2)}.${pad(at.getUTCDate(), 2)}`;
  const time = `${pad(at.getUTCHours(), 2)}:${pad(at.getUTCMinutes(), 2)}`;
  return `${weekdays[at.getUTCDay()]} ${date} ${time} GMT`;
}

/** REV-01: revision ids newest first. Ids are fixed-width digits, so text order is time order. */
export function newestFirst(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
}
