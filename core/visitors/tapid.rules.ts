import { isAllowedName } from "../names/names.rules.ts";
import { decodePercent } from "../values/percent-text.rules.ts";

/**
 * The TAPID third-party visitor cookie (svc_thirdparty_visitor_id). Its value holds one entry per
 * account/profile, each followed by `|`: `acct/prof>id|acct2/prof2>id2|` (DEC-COL-10).
 */
export const tapidCookieName = "TAPID";

/** DEC-COL-10: one year. */
export const tapidMaxAgeSeconds = 31_536_000;

/** DEC-COL-10, in its order: `Path=/; Max-Age=...; HttpOnly; Secure; SameSite=None`. */
function tapidAttributes(maxAgeSeconds: number): string {
  return `Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=None`;
}

export interface TapidEntry {
  readonly account: string;
  readonly profile: string;
  readonly visitorId: string;
}

/**
 * Characters an entry's ID may hold raw: the cookie-octets of RFC 6265 except the entry delimiters `>`
 * and `|`, and `%`, which marks percent-encoding. Anything else makes the ID percent-encoded.
 */
const rawSafeId = /^[\x21\x23\x24\x26-\x2B\x2D-\x3A\x3C\x3D\x3F-\x5B\x5D-\x7B\x7D\x7E]+$/;
/** An unpaired UTF-16 surrogate: no UTF-8 can carry it. */
export const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** DEC-COL-10: raw when every character is allowed in a cookie value, else percent-encoded (UTF-8). */
export function encodeTapidId(visitorId: string): string {
  if (rawSafeId.test(visitorId)) return visitorId;
  // encodeURIComponent refuses unpaired surrogates; they cannot be sent anyway, so they become U+FFFD.
  return encodeURIComponent(visitorId.replace(loneSurrogate, "\uFFFD"));
}

/** DEC-COL-10: readers decode; a raw ID never holds `%`, so decoding is unambiguous. */
export function decodeTapidId(text: string): string {
  return decodePercent(text);
}

/**
 * VID-03, DEC-COL-10: the entries of a TAPID value, in order. Pieces that are not `acct/prof>id` are
 * skipped, and so are pieces whose account or profile is not a valid name (DEC-DLE-02): entries are written
 * back into the Set-Cookie header, so a name holding `;`, a line break or any other character outside the
 * name rule must never travel from one request's cookie into an answer. A value that was percent-encoded
 * as a whole (no raw `>` but an encoded one) is decoded first.
 */
export function parseTapid(value: string): TapidEntry[] {
  const text = !value.includes(">") && /%3e/i.test(value) ? decodePercent(value) : value;
  const entries: TapidEntry[] = [];
  for (const piece of text.split("|")) {
    const arrow = piece.indexOf(">");
    if (arrow <= 0) continue;
    const key = piece.slice(0, arrow);
    const slash = key.indexOf("/");
    if (slash <= 0 || slash === key.length - 1) continue;
    const account = key.slice(0, slash);
    const profile = key.slice(slash + 1);
    if (!isAllowedName(account) || !isAllowedName(profile)) continue;
    const visitorId = decodeTapidId(piece.slice(arrow + 1));
    if (visitorId === "") continue;
    entries.push({ account, profile, visitorId });
  }
  return entries;
}

/** DEC-COL-10: the cookie value for `entries`, each entry followed by `|`. */
export function serializeTapid(entries: readonly TapidEntry[]): string {
  let value = "";
  for (const entry of entries) value += serializeEntry(entry);
  return value;
}

function serializeEntry(entry: TapidEntry): string {
  return `${entry.account}/${entry.profile}>${encodeTapidId(entry.visitorId)}|`;
}

/**
 * The longest `TAPID=<value>` browsers keep: a cookie whose name and value pass 4,096 bytes is dropped
 * whole (RFC 6265 section 6.1 asks for at least that much; browsers keep no more), so that the visitor would
 * keep the old cookie, or none.
 */
export const maxTapidCookieLength = 4096;

/**
 * The value to write: the entries in order, as many as fit in a cookie browsers keep (the last ones are the
 * oldest: new entries go first), or null when not even the first fits. Values are ASCII, so length is bytes.
 */
function serializeWithinCookie(entries: readonly TapidEntry[]): string | null {
  let value = "";
  for (const entry of entries) {
    const next = value + serializeEntry(entry);
    if (tapidCookieName.length + 1 + next.length > maxTapidCookieLength) break;
    value = next;
  }
  return value === "" ? null : value;
}

/** A write of `entries`, or no change when not even the first entry fits in a cookie. */
function writeOf(entries: readonly TapidEntry[]): TapidCookieAction {
  const value = serializeWithinCookie(entries);
  return value === null ? { kind: "none" } : { kind: "write", value };
}

/** VID-03: the ID this account/profile has in the cookie (the first entry, should there be two), or null. */
export function findTapidId(entries: readonly TapidEntry[], account: string, profile: string): string | null {
  for (const entry of entries) if (entry.account === account && entry.profile === profile) return entry.visitorId;
  return null;
}

export type TapidCookieAction =
  | { readonly kind: "none" }
  | { readonly kind: "write"; readonly value: string }
  | { readonly kind: "expire" };

export interface TapidPlanInput {
  /** The cookie's entries as the request sent them. */
  readonly entries: readonly TapidEntry[];
  readonly account: string;
  readonly profile: string;
  /** svc_override_tapid */
  readonly override: string | null;
  /** The visitor ID the event was given (DEC-COL-09). */
  readonly resolvedVisitorId: string;
  readonly skip: boolean;
  readonly delete: boolean;
}

export interface TapidPlan {
  readonly action: TapidCookieAction;
  /** The account/profile's TAPID once the answer is applied (svc_thirdparty_visitor_id), or null. */
  readonly thirdPartyVisitorId: string | null;
}

/**
 * DEC-COL-10, VID-04, VID-05, VID-06, VID-07: what the answer does to the TAPID cookie.
 * - an override is written as this account/profile's entry, moved first (even with skip or delete);
 * - delete removes the entry; a cookie left empty is expired with Max-Age=0; no entry, no change;
 * - skip neither reads nor writes;
 * - otherwise, with no entry yet, the resolved ID is written as a new first entry.
 * A value is written only with the entries that fit in a cookie browsers keep (`maxTapidCookieLength`); an
 * ID whose own entry does not fit (up to 1,024 characters beyond ASCII, percent-encoded) is not written at
 * all, and the event keeps it as its TAPID all the same.
 */
export function planTapidCookie(input: TapidPlanInput): TapidPlan {
  const own = findTapidId(input.entries, input.account, input.profile);
  const others = input.entries.filter((entry) => entry.account !== input.account || entry.profile !== input.profile);
  if (input.override) {
    const first = { account: input.account, profile: input.profile, visitorId: input.override };
    return { action: writeOf([first, ...others]), thirdPartyVisitorId: input.override };
  }
  if (input.delete) {
    if (own === null) return { action: { kind: "none" }, thirdPartyVisitorId: null };
    // Others that do not fit in a cookie at all (only a client that is not a browser sends such a cookie):
    // the cookie is expired rather than left holding the entry to delete.
    const rest = writeOf(others);
    return { action: rest.kind === "write" ? rest : { kind: "expire" }, thirdPartyVisitorId: null };
  }
  if (input.skip) return { action: { kind: "none" }, thirdPartyVisitorId: null };
  if (own !== null) return { action: { kind: "none" }, thirdPartyVisitorId: own };
  const first = { account: input.account, profile: input.profile, visitorId: input.resolvedVisitorId };
  return { action: writeOf([first, ...input.entries]), thirdPartyVisitorId: input.resolvedVisitorId };
}

/** DEC-COL-10: the Set-Cookie header of an action, or null when the cookie stays as it is. */
export function tapidSetCookie(action: TapidCookieAction): string | null {
  switch (action.kind) {
    case "none":
      return null;
    case "write":
      return `${tapidCookieName}=${action.value}; ${tapidAttributes(tapidMaxAgeSeconds)}`;
    case "expire":
      return `${tapidCookieName}=; ${tapidAttributes(0)}`;
  }
}
