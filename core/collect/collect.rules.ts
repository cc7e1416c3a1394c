import { type CollectError, type CollectErrorCode, collectError } from "../errors/collect.errors.ts";
import { defaultJsonBodyRules, type JsonBodyProblem, readJsonObjectBody } from "../json/json-body.rules.ts";
import { fitsCombinedLength, isAllowedName } from "../names/names.rules.ts";
import { err, ok, type Result } from "../result.ts";
import { isIndexableText } from "../values/storable-text.rules.ts";
import { numberAsIdText } from "../values/value-text.rules.ts";
import { type CollectCookies, readCollectCookies } from "../visitors/cookies.rules.ts";
import { loneSurrogate } from "../visitors/tapid.rules.ts";
import { type RequestVisitor, readRequestVisitor, visitorIdParams } from "../visitors/visitor-id.rules.ts";

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/**
 * The parameters of one event, name to value. Always a null-prototype object, so that `__proto__`,
 * `constructor` or `hasOwnProperty` sent as parameter names are plain data and every lookup is an own one.
 */
export type EventParams = Record<string, JsonValue>;

/** DEC-COL-05, COL-12: cache-busters, accepted and never stored. */
export const cacheBusterParams: ReadonlySet<string> = new Set(["cb", "_"]);

/** DEC-COL-01: the profile when svc_profile is absent. */
export const defaultProfile = "main";

/** DEC-COL-04: the accepted values of the `file-type` parameter. */
export const allowedFileTypes: ReadonlySet<string> = new Set(["json", "javascript"]);

/** A new parameter object without a prototype (see EventParams). */
export function emptyParams(): EventParams {
  return Object.create(null) as EventParams;
}

const bodyProblems: Readonly<Record<JsonBodyProblem, CollectErrorCode>> = {
  empty: "emptyBody",
  "too-deep": "tooDeep",
  "invalid-json": "invalidJson",
  "not-an-object": "notAnObject",
  "key-with-period": "keyWithPeriod",
};

/**
 * COL-06, COL-07, DEC-COL-04, DEC-DLE-03: a POST body's text as the event's parameters, by the JSON body
 * rules the data layer API shares (a JSON object, no key with a period at any depth, at most 64 levels,
 * depth checked before parsing). JSON.parse keeps `__proto__` as an own key; the top level is copied into
 * a null-prototype object, so no parameter name ever reaches a prototype.
 */
/** DEC-COL-04: the body's rules; a visitor ID sent as a 64-bit number keeps its digits (readVisitorIdParam). */
const eventBodyRules = { ...defaultJsonBodyRules, exactLargeIntegers: new Set<string>(visitorIdParams) };

export function parseEventBody(text: string): Result<EventParams, CollectError> {
  const read = readJsonObjectBody(text, eventBodyRules);
  if (!read.ok) return err(collectError(bodyProblems[read.error]));
  const params = emptyParams();
  for (const key of Object.keys(read.value)) params[key] = read.value[key] as JsonValue;
  return ok(params);
}

/**
 * The WHATWG URL parser, which every host of the core provides (Bun, Deno, Node, browsers) though ES2023 does
 * not define it. Declared here with only what the core reads of it, so that the core type-checks without DOM
 * or runtime types (core/tsconfig.json).
 */
declare const URL: new (input: string) => { readonly hostname: string };

/**
 * The Referer most browsers send: `http` or `https`, a host name of lower-case letters, digits, hyphens and dots,
 * then a path, a query, a fragment or nothing. Its host name is the text itself, which the URL parser would give
 * back unchanged, except where a label starts with `xn--` (checked as Punycode) or the last one is a number
 * (read as an IPv4 address: `1.2.3` is `1.2.0.3`); those, a port, and anything else go to the parser.
 */
const plainReferer = /^https?:\/\/([a-z0-9-]+(?:\.[a-z0-9-]+)*\.?)(?:[/?#]|$)/;
const hostTheParserChanges = /(?:^|\.)xn--|(?:^|\.)(?:\d+|0x[0-9a-f]*)\.?$/;

/** COL-11, DEC-COL-05: the host name of a Referer (no port, path or query), or null when it has none. */
export function refererHost(referer: string): string | null {
  const plain = plainReferer.exec(referer);
  if (plain !== null && !hostTheParserChanges.test(plain[1] as string)) return plain[1] as string;
  try {
    const host = new URL(referer).hostname;
    return host === "" ? null : host;
  } catch {
    return null;
  }
}

export interface CollectRequestInput {
  readonly method: "GET" | "POST";
  /** The query string's parameters in order; a name given twice keeps its first value. */
  readonly query: Iterable<readonly [string, string]>;
  /** POST: the body's parameters, or null when the body is empty. GET: null. */
  readonly body: EventParams | null;
  /** GET: the Referer header. */
  readonly referer: string | null;
  /** The Cookie header, for the TAPID and the first-party cookie's v_id (DEC-COL-09); absent: no cookies. */
  readonly cookieHeader?: string | null;
  /** Whether the account has this profile (the tenants configured). */
  readonly isKnownProfile: (account: string, profile: string) => boolean;
}

/**
 * A collection request that passed every rule, read once: what the event is stored with, and all that the
 * rules after the read need (the visitor's identification, the event's description).
 */
export interface CollectRequest {
  readonly account: string;
  readonly profile: string;
  readonly datasource: string | null;
  readonly event: string | null;
  readonly traceId: string | null;
  /**
   * Every parameter except the cache-busters, visitor ID parameters as text; `svc_referrer_host` only from
   * a GET's Referer.
   */
  readonly params: EventParams;
  /** What collection reads of the Cookie header, parsed once (readCollectCookies). */
  readonly cookies: CollectCookies;
  /** What the request says about its visitor: its parameters and cookies, read once (readRequestVisitor). */
  readonly visitor: RequestVisitor;
}

/**
 * svc_event or svc_trace_id as the text the event is found by (the admin events query, the profile rules):
 * a number as its text, as a visitor ID is read (numberAsIdText: a JSON client may send `"svc_trace_id":
 * 9001`; a whole number past 2^53 has lost its digits and is none), a lone surrogate as U+FFFD, as the
 * store writes it. The parameter is set to that text too, so that the event's data and its columns agree.
 * Anything else (absent, "", a boolean, an object) is none. Text that not every store keeps and indexes (a
 * U+0000, over 2,048 bytes: isIndexableText) is refused, as an unusable visitor ID is.
 */
function readTextParam(params: EventParams, name: "svc_event" | "svc_trace_id"): Result<string | null, CollectError> {
  const value = params[name];
  const text = typeof value === "string" ? value.replace(loneSurrogate, "\uFFFD") : numberAsIdText(value);
  if (text === null || text === "") return ok(null);
  if (!isIndexableText(text)) return err(collectError("unstorableText", { parameter: name }));
  params[name] = text;
  return ok(text);
}

/**
 * COL-03, COL-04, COL-05, COL-07, COL-08, COL-09, COL-11, COL-12, DEC-COL-01, DEC-COL-02, DEC-COL-04,
 * DEC-COL-05, DEC-COL-09: merges the query string and the body (the body wins), drops the cache-busters and
 * any `svc_referrer_host` the client sent (the stored one comes from a GET's Referer only), and checks, in this
 * order: an empty POST, svc_account and svc_profile strings and present, their characters and the 250 rule
 * (with svc_datasource), that the account has the profile, `file-type`, and the visitor ID parameters and
 * first-party cookie (readRequestVisitor); a numeric visitor ID becomes its text. The Cookie header is parsed
 * here, once, and the visitor's inputs read once: the value carries both.
 */
export function readCollectRequest(input: CollectRequestInput): Result<CollectRequest, CollectError> {
  const params = emptyParams();
  let queryParams = 0;
  for (const [name, value] of input.query) {
    if (cacheBusterParams.has(name)) continue;
    queryParams += 1;
    if (!(name in params)) params[name] = value;
  }
  if (input.method === "POST" && input.body === null && queryParams === 0) return err(collectError("emptyBody"));
  if (input.body !== null) {
    for (const name of Object.keys(input.body)) {
      if (!cacheBusterParams.has(name)) params[name] = input.body[name] as JsonValue;
    }
  }

  delete params.svc_referrer_host;

  for (const name of ["svc_account", "svc_profile"]) {
    const value = params[name];
    if (value !== undefined && value !== null && typeof value !== "string")
      return err(collectError("paramNotString", { parameter: name }));
  }
  const account = params.svc_account;
  const profile = params.svc_profile === undefined ? defaultProfile : params.svc_profile;
  if (typeof account !== "string" || account === "" || typeof profile !== "string" || profile === "") {
    return err(collectError("missingAccountOrProfile"));
  }
  if (!isAllowedName(account) || !isAllowedName(profile)) return err(collectError("restrictedCharacters"));
  const rawDatasource = params.svc_datasource;
  let datasource: string | null = null;
  if (rawDatasource !== undefined && rawDatasource !== null && rawDatasource !== "") {
    if (typeof rawDatasource !== "string" || !isAllowedName(rawDatasource))
      return err(collectError("restrictedCharacters"));
    datasource = rawDatasource;
  }
  if (!fitsCombinedLength(account, profile, datasource ?? "")) return err(collectError("namesTooLong"));
  if (!input.isKnownProfile(account, profile)) return err(collectError("unknownAccountOrProfile"));
  const fileType = params["file-type"];
  if (fileType !== undefined && (typeof fileType !== "string" || !allowedFileTypes.has(fileType))) {
    return err(collectError("invalidFileType"));
  }
  const cookies = readCollectCookies(input.cookieHeader);
  const visitor = readRequestVisitor(params, cookies, account, profile);
  if (!visitor.ok) return visitor;
  for (const name of visitorIdParams) {
    const text = visitor.value.params[name];
    if (text !== null) params[name] = text;
  }

  const event = readTextParam(params, "svc_event");
  if (!event.ok) return event;
  const traceId = readTextParam(params, "svc_trace_id");
  if (!traceId.ok) return traceId;

  if (input.method === "GET" && input.referer) {
    const host = refererHost(input.referer);
    if (host !== null) params.svc_referrer_host = host;
  }
  return ok({
    account,
    profile,
    datasource,
    event: event.value,
    traceId: traceId.value,
    params,
    cookies,
    visitor: visitor.value,
  });
}
