import { invalidRequestBecause, type ManagementError, managementError, quoted } from "../errors/index.ts";
import {
  defaultJsonBodyRules,
  describeJsonBodyProblem,
  type JsonBodyRules,
  readJsonObjectBody,
} from "../json/json-body.rules.ts";
import { fitsCombinedLength, isAllowedName, maxCombinedNameLength } from "../names/names.rules.ts";
import type { DataLayerChangeState, DataLayerKey } from "../ports/datalayer.store.ts";
import { err, ok, type Result } from "../result.ts";

/** The hosted data layer API answers every refusal of its input with one 400 1400 (DLE-ERR-*), saying which. */
const invalidRequest = invalidRequestBecause;

/** DLE-ERR-03, DEC-DLE-02: a name of the path; a segment that could not be decoded arrives as null. */
function readName(what: string, name: string | null | undefined): Result<string, ManagementError> {
  if (typeof name !== "string") return err(invalidRequest(`the ${what} in the path is not valid percent-encoding`));
  if (name === "") return err(invalidRequest(`the ${what} in the path is empty`));
  if (!isAllowedName(name))
    return err(invalidRequest(`the ${what} ${quoted(name)} holds a character names may not: only A-Z a-z 0-9 _ - ~`));
  return ok(name);
}

function combinedLengthProblem(names: readonly string[]): string {
  const length = names.reduce((sum, name) => sum + name.length, 0);
  const what = names.length === 2 ? "the account and profile" : "the account, profile and data layer id";
  return `${what} are ${length} characters together, and may be ${maxCombinedNameLength} at most`;
}

/**
 * DLE-ERR-02, DLE-ERR-03, DLE-ERR-05, DEC-DLE-02: the account and profile of a data layer path. Names
 * hold only `A-Z a-z 0-9 _ - ~`; a segment that could not be decoded arrives as null and is refused too.
 */
export function validateProfilePath(
  account: string | null | undefined,
  profile: string | null | undefined,
): Result<{ account: string; profile: string }, ManagementError> {
  const checkedAccount = readName("account", account);
  if (!checkedAccount.ok) return checkedAccount;
  const checkedProfile = readName("profile", profile);
  if (!checkedProfile.ok) return checkedProfile;
  const names = [checkedAccount.value, checkedProfile.value];
  if (!fitsCombinedLength(...names)) return err(invalidRequest(combinedLengthProblem(names)));
  return ok({ account: checkedAccount.value, profile: checkedProfile.value });
}

/**
 * DLE-ERR-02, DLE-ERR-03, DEC-DLE-02: account, profile and dl_id hold only `A-Z a-z 0-9 _ - ~`, and
 * len(account) + len(profile) + len(dl_id), without separators, is at most 250.
 */
export function validateDataLayerPath(
  account: string | null | undefined,
  profile: string | null | undefined,
  dlId: string | null | undefined,
): Result<DataLayerKey, ManagementError> {
  const tenant = validateProfilePath(account, profile);
  if (!tenant.ok) return tenant;
  const checkedId = readName("data layer id", dlId);
  if (!checkedId.ok) return checkedId;
  const names = [tenant.value.account, tenant.value.profile, checkedId.value];
  if (!fitsCombinedLength(...names)) return err(invalidRequest(combinedLengthProblem(names)));
  return ok({ ...tenant.value, dlId: checkedId.value });
}

/** DEC-DLE-04: the media type must be application/json; parameters such as charset are allowed. */
export function validateDataLayerContentType(contentType: string | null | undefined): Result<void, ManagementError> {
  const media = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  if (media === "application/json") return ok(undefined);
  return err(
    invalidRequest(`the Content-Type must be application/json, not ${contentType ? quoted(contentType) : "missing"}`),
  );
}

export type BodyEncoding = "identity" | "gzip";

/** DEC-DLE-04: `Content-Encoding: gzip` is accepted (and no encoding, or identity); any other is 400 1400. */
export function readDataLayerEncoding(
  contentEncoding: string | null | undefined,
): Result<BodyEncoding, ManagementError> {
  const coding = (contentEncoding ?? "").trim().toLowerCase();
  if (coding === "" || coding === "identity") return ok("identity");
  if (coding === "gzip" || coding === "x-gzip") return ok("gzip");
  return err(invalidRequest(`the Content-Encoding ${quoted(contentEncoding ?? "")} is not taken: gzip, or none`));
}

/**
 * DLE-ERR-01, DLE-ERR-06, DLE-ERR-07, DEC-DLE-03: the body of an upload or update: a JSON object, no key
 * with a period at any depth, nested at most 64 levels. Answers the text as sent (what is served later),
 * so numbers keep every digit and `__proto__` or `constructor` keys stay plain data.
 */
export function validateDataLayerBody(
  text: string,
  rules: JsonBodyRules = defaultJsonBodyRules,
): Result<string, ManagementError> {
  const parsed = readJsonObjectBody(text, rules);
  return parsed.ok ? ok(text) : err(invalidRequest(describeJsonBodyProblem(text, parsed.error, rules)));
}

/** DEC-DLE-09, DLE-12, LIM-01: the names of the existing data layers, or 400 1400 when there are more than `max`. */
export function limitDataLayerList(names: readonly string[], max: number): Result<string[], ManagementError> {
  if (names.length > max) return err(managementError("dataLayerListTooLarge", { max }));
  return ok([...names].sort(compareCodeUnits));
}

/** DEC-DLE-09: binary order of UTF-16 code units (what `<` on strings does, unlike localeCompare). */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A JSON text as a JavaScript string literal that is also safe inside an HTML script element. */
function scriptStringLiteral(text: string): string {
  return JSON.stringify(text)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * DEC-DLE-07: the `.js` form of a published data layer: assigns the object to
 * `window.utag.globals.dle.enrichments["<dl_id>"]`, creating the path when missing. The JSON goes through
 * JSON.parse rather than being pasted in as an object literal, where a `__proto__` key would set the
 * prototype instead of being data (DEC-DLE-03).
 */
export function dataLayerScript(dlId: string, jsonText: string): string {
  return [
    "(function (w) {",
    "  var u = (w.utag = w.utag || {});",
    "  var g = (u.globals = u.globals || {});",
    "  var d = (g.dle = g.dle || {});",
    "  var e = (d.enrichments = d.enrichments || {});",
    `  e[${scriptStringLiteral(dlId)}] = JSON.parse(${scriptStringLiteral(jsonText)});`,
    "})(window);",
    "",
  ].join("\n");
}

const dayMs = 86_400_000;

/** DEC-DLE-08, LIM-02: how long a status is kept, from `limits.statusRetentionDays`. */
export function statusRetentionMs(limits: { readonly statusRetentionDays: number }): number {
  return limits.statusRetentionDays * dayMs;
}

/**
 * DLE-04, DLE-08, DLE-09, DEC-DLE-05, DEC-DLE-08: get status answers the state of the newest change; a
 * status is kept `retentionMs` after its last change (settling, or acceptance while pending), after which,
 * as for a dl_id never seen, it is 404 1404 "Status unavailable...".
 */
export function reportStatus(
  newest: {
    readonly state: DataLayerChangeState;
    readonly acceptedAt: number;
    readonly settledAt: number | null;
  } | null,
  now: number,
  retentionMs: number,
): Result<DataLayerChangeState, ManagementError> {
  if (newest === null) return err(managementError("statusUnavailable"));
  const lastChangeAt = newest.settledAt ?? newest.acceptedAt;
  if (now - lastChangeAt >= retentionMs) return err(managementError("statusUnavailable"));
  return ok(newest.state);
}
