import { type CollectError, collectError } from "../errors/collect.errors.ts";
import type { IdSource } from "../ports/ids.port.ts";
import { err, ok, type Result } from "../result.ts";
import { isIndexableText } from "../values/storable-text.rules.ts";
import { numberAsIdText } from "../values/value-text.rules.ts";
import type { CollectCookies } from "./cookies.rules.ts";
import {
  findTapidId,
  loneSurrogate,
  parseTapid,
  planTapidCookie,
  type TapidCookieAction,
  type TapidEntry,
  tapidSetCookie,
} from "./tapid.rules.ts";

/** Where an event's visitor ID came from: a row of the precedence table, or a new random ID. */
export type VisitorIdSource = "override" | "tapid" | "visitor_id" | "first_party" | "new";

/**
 * The longest visitor ID, and the longest value of a visitor ID attribute, the service takes (characters).
 * The contract sets none; without one an ID could make a TAPID cookie no browser keeps, or a visitor that
 * the privacy API's form cannot name. An e-mail address is at most 254. Its UTF-8 is at most
 * maxIndexedTextBytes too (2,048 bytes: 1,024 characters of CJK are 3,072), which every store can index.
 */
export const maxVisitorIdLength = 1024;

/** One character of Unicode's White_Space property (every one is in the Basic Multilingual Plane: one code unit). */
const whiteSpaceCharacter = /^\p{White_Space}$/u;

/**
 * DEC-PRV-05: a visitor-ID value as the service keeps and looks it up, wherever it enters (a parameter of a
 * visitor ID attribute and the value of a known visitor ID at collection, a file's visitor ID column, the
 * privacy and moments lookups): the characters of Unicode's White_Space property (spaces, tabs, line ends,
 * NEL, NO-BREAK SPACE...) removed from both ends, nothing else changed (case kept). Not String.prototype.trim,
 * which also removes U+FEFF (not White_Space) and keeps U+0085 (White_Space). Scanned from each end, so a
 * value of a million spaces costs a million steps, never their square (a regex anchored at the end would).
 * An empty result is no value: each entry point treats it as missing.
 */
export function normaliseVisitorIdValue(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && whiteSpaceCharacter.test(value.charAt(start))) start += 1;
  while (end > start && whiteSpaceCharacter.test(value.charAt(end - 1))) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * Whether a visitor ID (or a visitor ID attribute's value) is one the service takes: not too long (in characters
 * and in bytes, isIndexableText), no control characters (U+0000 among them, which no store keeps).
 */
export function isUsableVisitorId(value: string): boolean {
  return isLookupVisitorId(value) && isIndexableText(value);
}

/**
 * DEC-PRV-05: whether the privacy and moments lookups look `value` up: the characters and control-character
 * limits of isUsableVisitorId, not its limit in bytes, which came later than the visitors a store already
 * holds (a libSQL file may hold an ID of 1,024 CJK characters, kept before the limit): they stay readable. A
 * value holding U+0000 (a control character) names nothing stored, and no store is asked.
 */
export function isLookupVisitorId(value: string): boolean {
  return (
    value.length <= maxVisitorIdLength &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a visitor ID holding control characters is refused
    !/[\u0000-\u001f\u007f]/.test(value)
  );
}

/**
 * VID-08, DEC-COL-11, DEC-PRV-05: a parameter's value as the value of a visitor ID attribute, or null when it is none.
 * Text is taken normalised (normaliseVisitorIdValue) and a number as its text (numberAsIdText);
 * absent, null, "", white space only, booleans, objects and arrays are none, and so is text that isUsableVisitorId refuses,
 * which the moments and privacy APIs could not look up. Stitching (identitiesOfEvent) and the profile's
 * captured values (applyEvent) both read values through it, so every value that stitches is captured and
 * every captured value finds its visitor.
 */
export function readVisitorIdValue(value: unknown): string | null {
  // A lone surrogate becomes U+FFFD, as in readVisitorIdParam: the store writes U+FFFD for it, so a group
  // keyed by the raw text would not be found again, and the next event would start the group anew.
  const text =
    typeof value === "string" ? normaliseVisitorIdValue(value.replace(loneSurrogate, "\uFFFD")) : numberAsIdText(value);
  return text !== null && text !== "" && isUsableVisitorId(text) ? text : null;
}

/** DEC-COL-09: the parameters that carry a visitor ID, in the order they are checked. */
export const visitorIdParams = ["svc_override_tapid", "svc_visitor_id", "svc_firstparty_visitor_id"] as const;

export type VisitorIdParam = (typeof visitorIdParams)[number];

/**
 * DEC-COL-09, VID-01: a visitor ID parameter as the service takes it. A string is taken as it is and a number
 * as its text (numberAsIdText: JSON clients send numeric ids; identitiesOfEvent reads visitor ID attribute
 * parameters the same way); absent, null and "" are no ID (null). Anything else (a boolean, an object, an
 * array, a whole number past 2^53) is refused as not a string, and text that isUsableVisitorId refuses is
 * refused as unusable.
 */
export function readVisitorIdParam(name: VisitorIdParam, value: unknown): Result<string | null, CollectError> {
  if (value === undefined || value === null || value === "") return ok(null);
  // A lone surrogate cannot be stored or sent as UTF-8 (the store would write U+FFFD for it, the stored
  // event's JSON the escape): it becomes U+FFFD here, so the ID is the same everywhere.
  const text = typeof value === "string" ? value.replace(loneSurrogate, "\uFFFD") : numberAsIdText(value);
  if (text === null) return err(collectError("paramNotString", { parameter: name }));
  return isUsableVisitorId(text) ? ok(text) : err(collectError("unusableVisitorId", { source: `${name} param value` }));
}

/** What a request says about its visitor, read from its parameters and cookies. Empty values are null. */
export interface VisitorIdInputs {
  /** svc_override_tapid */
  readonly override: string | null;
  /** This account/profile's entry of the TAPID cookie. */
  readonly tapid: string | null;
  /** svc_visitor_id */
  readonly visitorId: string | null;
  /** svc_firstparty_visitor_id, else `v_id` of the utag_main cookie. */
  readonly firstParty: string | null;
  /** svc_skip_3rd_party_vid_cookies=true */
  readonly skipTapid: boolean;
  /** svc_delete_3rd_party_vid_cookies=true */
  readonly deleteTapid: boolean;
}

export interface VisitorIdRule {
  readonly source: Exclude<VisitorIdSource, "new">;
  readonly clauses: readonly string[];
  /** The input the row reads, whether or not it may take it (a skipped TAPID is still the TAPID sent). */
  readonly input: "override" | "tapid" | "visitorId" | "firstParty";
  readonly pick: (inputs: VisitorIdInputs) => string | null;
}

/** DEC-COL-09: the sources of the visitor ID, highest precedence first. The first with a value wins. */
export const visitorIdPrecedence: readonly VisitorIdRule[] = [
  { source: "override", clauses: ["VID-04"], input: "override", pick: (inputs) => inputs.override },
  {
    source: "tapid",
    clauses: ["VID-03", "VID-05", "VID-06"],
    input: "tapid",
    pick: (inputs) => (inputs.skipTapid || inputs.deleteTapid ? null : inputs.tapid),
  },
  { source: "visitor_id", clauses: ["VID-01", "VID-03"], input: "visitorId", pick: (inputs) => inputs.visitorId },
  { source: "first_party", clauses: ["VID-03"], input: "firstParty", pick: (inputs) => inputs.firstParty },
];

/** VID-09: the row after the table, a new random ID, taken when no source has a value. */
export const newVisitorIdClauses: readonly string[] = ["VID-09"];

export interface ResolvedVisitorId {
  readonly visitorId: string;
  readonly source: VisitorIdSource;
}

/** VID-09: 128 random bits as 32 lower-case hex digits (a GUID without dashes, safe in a cookie as it is). */
export function newVisitorId(ids: IdSource): string {
  return ids.randomHex(16);
}

/** DEC-COL-09, VID-03, VID-04, VID-09: the first source of the precedence table that has a value, else a new ID. */
export function resolveVisitorId(inputs: VisitorIdInputs, ids: IdSource): ResolvedVisitorId {
  for (const rule of visitorIdPrecedence) {
    const visitorId = rule.pick(inputs);
    if (visitorId) return { visitorId, source: rule.source };
  }
  return { visitorId: newVisitorId(ids), source: "new" };
}

/** VID-05, VID-06: a flag is set by JSON `true` or the text `true` (any case). */
export function isFlagSet(value: unknown): boolean {
  return value === true || (typeof value === "string" && value.toLowerCase() === "true");
}

export interface VisitorIdentity extends ResolvedVisitorId {
  /** What the request said about its visitor, as the precedence table read it (explainVisitorId shows it). */
  readonly inputs: VisitorIdInputs;
  /** svc_thirdparty_visitor_id: the account/profile's TAPID once the answer is applied, where known. */
  readonly thirdPartyVisitorId: string | null;
  /** svc_firstparty_visitor_id, where known. */
  readonly firstPartyVisitorId: string | null;
  /** What the answer does to the TAPID cookie (DEC-COL-10). */
  readonly tapidCookie: TapidCookieAction;
  /** The answer's TAPID Set-Cookie header (tapidSetCookie of `tapidCookie`), or null. */
  readonly setCookie: string | null;
  /** How the visitor ID was chosen, row by row (explainVisitorId): what the journal shows. */
  readonly decision: VisitorIdDecision;
}

/**
 * What a collected request says about its visitor, read once from its parameters and its cookies
 * (readRequestVisitor). identifyVisitor and the event's description take it; nothing after the read goes back
 * to the raw parameters or the Cookie header.
 */
export interface RequestVisitor {
  readonly account: string;
  readonly profile: string;
  /** The visitor ID parameters as the service takes them (readVisitorIdParam), null where absent. */
  readonly params: Readonly<Record<VisitorIdParam, string | null>>;
  /** The precedence table's inputs, a known visitor ID of this account/profile normalised (DEC-PRV-05). */
  readonly inputs: VisitorIdInputs;
  /** The usable entries of every TAPID cookie sent, each account/profile once (tapidEntriesOf). */
  readonly tapidEntries: readonly TapidEntry[];
  /** svc_visitor_id as a known visitor ID of this account/profile (DEC-COL-11), or null when it is none. */
  readonly knownVisitorId: KnownVisitor | null;
}

/**
 * DEC-COL-09, DEC-COL-10: the usable TAPID entries of every TAPID cookie the browser sent, in its order; of
 * two entries for one account/profile the first is kept, so the answer's cookie (which gathers them all)
 * holds each once.
 */
function tapidEntriesOf(cookieValues: readonly string[]): TapidEntry[] {
  const entries: TapidEntry[] = [];
  const seen = new Set<string>();
  for (const raw of cookieValues) {
    for (const entry of parseTapid(raw)) {
      const key = `${entry.account}/${entry.profile}`;
      if (!isUsableVisitorId(entry.visitorId) || seen.has(key)) continue;
      seen.add(key);
      entries.push(entry);
    }
  }
  return entries;
}

/**
 * DEC-COL-09, DEC-COL-11, DEC-PRV-05, VID-01 to VID-06: what a collected request says about its visitor, read
 * once: each visitor ID parameter in the order of visitorIdParams (readVisitorIdParam; the first it refuses is
 * the answer), then the first-party ID of the utag_main cookie when svc_firstparty_visitor_id is absent,
 * refused when that v_id is not usable like the parameter (the tag library on the caller's own site wrote
 * it), then the TAPID entries of every TAPID cookie. A TAPID entry that is not usable is ignored, never
 * refused: the cookie is this service's own, written by an earlier answer (or altered by someone else), not
 * what the caller sends now, and refusing it would refuse every event of that browser for a year. Ignored,
 * the entry is also left out of the cookie written back, so an answer that writes the cookie replaces it.
 */
export function readRequestVisitor(
  params: Readonly<Record<string, unknown>>,
  cookies: CollectCookies,
  account: string,
  profile: string,
): Result<RequestVisitor, CollectError> {
  const sent: Record<VisitorIdParam, string | null> = {
    svc_override_tapid: null,
    svc_visitor_id: null,
    svc_firstparty_visitor_id: null,
  };
  for (const name of visitorIdParams) {
    const read = readVisitorIdParam(name, params[name]);
    if (!read.ok) return read;
    sent[name] = read.value;
  }
  let firstParty = sent.svc_firstparty_visitor_id;
  if (firstParty === null) {
    firstParty = cookies.utagMainVisitorId;
    if (firstParty !== null && !isUsableVisitorId(firstParty))
      return err(collectError("unusableVisitorId", { source: "v_id of the utag_main cookie" }));
  }
  const tapidEntries = tapidEntriesOf(cookies.tapid);
  const knownVisitorId =
    sent.svc_visitor_id === null ? null : matchKnownVisitorId(sent.svc_visitor_id, account, profile);
  // DEC-PRV-05: a known visitor ID names its visitor by the normalised value, whichever source it comes from.
  const known = (visitorId: string | null) =>
    visitorId === null ? null : normaliseKnownVisitorId(visitorId, account, profile);
  const inputs: VisitorIdInputs = {
    override: known(sent.svc_override_tapid),
    tapid: known(findTapidId(tapidEntries, account, profile)),
    visitorId: knownVisitorId
      ? buildKnownVisitorId(account, profile, knownVisitorId.attributeId, knownVisitorId.value)
      : sent.svc_visitor_id,
    firstParty: known(firstParty),
    skipTapid: isFlagSet(params.svc_skip_3rd_party_vid_cookies),
    deleteTapid: isFlagSet(params.svc_delete_3rd_party_vid_cookies),
  };
  return ok({ account, profile, params: sent, inputs, tapidEntries, knownVisitorId });
}

/**
 * DEC-COL-09, DEC-COL-10, VID-01 to VID-07, VID-09: the event's visitor and the answer's TAPID cookie, from
 * what readRequestVisitor read. The event's visitor ID is always usable (isUsableVisitorId): the read refused
 * parameters and a utag_main v_id that are not, and left out TAPID entries that are not.
 */
export function identifyVisitor(visitor: RequestVisitor, ids: IdSource): VisitorIdentity {
  const { inputs } = visitor;
  const resolved = resolveVisitorId(inputs, ids);
  const plan = planTapidCookie({
    entries: visitor.tapidEntries,
    account: visitor.account,
    profile: visitor.profile,
    override: inputs.override,
    resolvedVisitorId: resolved.visitorId,
    skip: inputs.skipTapid,
    delete: inputs.deleteTapid,
  });
  const setCookie = tapidSetCookie(plan.action);
  return {
    ...resolved,
    inputs,
    thirdPartyVisitorId: plan.thirdPartyVisitorId,
    firstPartyVisitorId: inputs.firstParty,
    tapidCookie: plan.action,
    setCookie,
    decision: explainVisitorId(inputs, resolved, setCookie),
  };
}

/** One row of the precedence table as a decision shows it: what the row read and whether it won. */
export interface PrecedenceRow {
  readonly source: VisitorIdSource;
  readonly clauses: readonly string[];
  /** The row's input (the new row: the ID made), or null when there was none. */
  readonly value: string | null;
  readonly chosen: boolean;
  /**
   * Whether `value` is what the request carried. Always true when the decision was seen as it was made; a
   * decision rebuilt from a stored event (which keeps only some inputs) has false where the input is unknown.
   */
  readonly known: boolean;
}

/** How an event's visitor ID was chosen: the table row by row, the TAPID flags, and the answer's TAPID cookie. */
export interface VisitorIdDecision {
  readonly source: VisitorIdSource;
  readonly precedence: readonly PrecedenceRow[];
  readonly skipTapid: boolean;
  readonly deleteTapid: boolean;
  /** The Set-Cookie header value the answer carried (DEC-COL-10), or null. */
  readonly tapidCookie: string | null;
}

/**
 * DEC-COL-09, DEC-COL-10, VID-03 to VID-06, VID-09: the decision behind a resolved visitor ID, read back from
 * the precedence table: each row with the input it read, the winner marked, and a last row for a new ID.
 */
export function explainVisitorId(
  inputs: VisitorIdInputs,
  resolved: ResolvedVisitorId,
  tapidCookie: string | null,
): VisitorIdDecision {
  const precedence: PrecedenceRow[] = visitorIdPrecedence.map((rule) => ({
    source: rule.source,
    clauses: rule.clauses,
    value: inputs[rule.input],
    chosen: rule.source === resolved.source,
    known: true,
  }));
  const isNew = resolved.source === "new";
  precedence.push({
    source: "new",
    clauses: newVisitorIdClauses,
    value: isNew ? resolved.visitorId : null,
    chosen: isNew,
    known: true,
  });
  return {
    source: resolved.source,
    precedence,
    skipTapid: inputs.skipTapid,
    deleteTapid: inputs.deleteTapid,
    tapidCookie,
  };
}

/** VID-02, DEC-COL-11: the known visitor ID `__<account>_<profile>__<attributeId>_<value>__`. */
export function buildKnownVisitorId(account: string, profile: string, attributeId: number, value: string): string {
  return `__${account}_${profile}__${attributeId}_${value}__`;
}

export interface KnownVisitor {
  readonly attributeId: number;
  readonly value: string;
}

/**
 * VID-02, DEC-COL-11, DEC-PRV-05: the visitor ID attribute and the normalised value (normaliseVisitorIdValue) of
 * a known visitor ID of this account/profile, or null when the ID is not one (anonymous, another
 * account/profile, no numeric attribute id, a value that is empty or white space only).
 * Account and profile names may hold `_`, so the ID is matched against the event's own names.
 */
export function matchKnownVisitorId(visitorId: string, account: string, profile: string): KnownVisitor | null {
  const prefix = `__${account}_${profile}__`;
  if (!visitorId.startsWith(prefix) || !visitorId.endsWith("__") || visitorId.length < prefix.length + 5) return null;
  const match = /^([1-9]\d*)_([\s\S]+)$/.exec(visitorId.slice(prefix.length, -2));
  if (!match) return null;
  const attributeId = Number(match[1]);
  const value = normaliseVisitorIdValue(match[2] as string);
  return Number.isSafeInteger(attributeId) && value !== "" ? { attributeId, value } : null;
}

/**
 * DEC-PRV-05, DEC-COL-11: a known visitor ID of this account/profile written with its value normalised
 * (`__acme_main__5120_ ann@example.com__` is `__acme_main__5120_ann@example.com__`); any other ID as it is.
 */
export function normaliseKnownVisitorId(visitorId: string, account: string, profile: string): string {
  const known = matchKnownVisitorId(visitorId, account, profile);
  return known ? buildKnownVisitorId(account, profile, known.attributeId, known.value) : visitorId;
}
