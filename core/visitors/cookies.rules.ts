/**
 * Reading the cookies collection cares about (TAPID and the tag library's utag_main) from a Cookie header.
 * Values are returned raw: each format decides how it is decoded (a TAPID entry is percent-encoded on its
 * own, so decoding the whole value first would break entries that hold `|` or `>`).
 */

/** The raw value of the first cookie called `name` in a Cookie header (surrounding quotes removed), or null. */
export function readCookieValue(header: string | null | undefined, name: string): string | null {
  return readCookieValues(header, name)[0] ?? null;
}

/**
 * The raw values of every cookie called `name` in a Cookie header, in its order (surrounding quotes
 * removed). A browser sends several when cookies of one name were set for different domains or paths (an
 * older deployment's `Domain=` cookie beside the host's own).
 */
export function readCookieValues(header: string | null | undefined, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator < 0 || part.slice(0, separator).trim() !== name) continue;
    const value = part.slice(separator + 1).trim();
    values.push(value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value);
  }
  return values;
}

/** decodeURIComponent that keeps the text as it is when it is not valid percent-encoding. */
export function decodePercent(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The name of the tag library's first-party cookie. */
export const utagMainCookieName = "utag_main";

/**
 * DEC-COL-09: the first-party visitor ID, `v_id` inside a `utag_main` cookie such as
 * `v_id:0190...$_sn:3$_ss:0$ses_id:1700000000000%3Bexp-session`; null when there is none.
 */
export function firstPartyIdFromUtagMain(raw: string): string | null {
  for (const part of decodePercent(raw).split("$")) {
    if (!part.startsWith("v_id:")) continue;
    const value = part.slice("v_id:".length).split(";")[0] ?? "";
    return value === "" ? null : value;
  }
  return null;
}
