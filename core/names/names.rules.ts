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

/**
 * Characters no e-mail address of a user holds: white space, `@` (but the one), control characters (a NUL
 * cut the address short in the store, so that a reset or a disable reached another row), invisible
 * formatting characters (zero-width spaces and joiners, bidirectional controls, the byte order mark, soft
 * hyphens, variation selectors), which would make two addresses that read the same, and characters beyond
 * the Basic Multilingual Plane (the tag characters among them).
 */
const notInEmail = [
  "\\s@",
  "\\u0000-\\u001f\\u007f-\\u009f", // control characters
  "\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u3164\\uffa0", // soft hyphen, joiners, fillers, Arabic letter mark
  "\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\ufeff\\ufe00-\\ufe0f\\ufff0-\\ufffb", // zero-width, bidirectional, variation selectors
  "\\ud800-\\udfff", // beyond the BMP (tag characters among them): the pattern has no u flag, as TypeBox builds it
].join("");

/** DEC-SES-04: a user's e-mail address as a pattern (the configuration schema's too): `local@domain.tld`. */
export const emailPatternSource = `^[^${notInEmail}]+@[^${notInEmail}]+\\.[^${notInEmail}.]+$`;

const emailPattern = new RegExp(emailPatternSource);

/** DEC-SES-04: whether `text` has the shape of a user's e-mail address (emailPatternSource). */
export function isEmailAddress(text: string): boolean {
  return emailPattern.test(text);
}
