import { type ManagementError, managementError } from "../errors/index.ts";
import { err, ok, type Result } from "../result.ts";
import { parseJsonPath } from "./request-matcher.rules.ts";

/** The methods a fault can be limited to (none: any method). */
export const faultMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type FaultMethod = (typeof faultMethods)[number];

/** The longest wait a fault may add before it answers (or before the request goes on). */
export const maxFaultDelayMs = 60_000;

/**
 * How a fault spoils an answer (its own, or svc-hub's when it has no status), issue 43: `cut-body` sends the
 * status, the headers and half the body, then closes the connection; `invalid-json` answers the first half of
 * the body's text, JSON no parser takes; `wrong-content-type` swaps the Content-Type (JSON for text/html, any
 * other for application/json).
 */
export const faultMalformations = ["cut-body", "invalid-json", "wrong-content-type"] as const;
export type FaultMalformation = (typeof faultMalformations)[number];

/** The slowest and fastest trickle a fault may send a body at (bytes per second). */
export const minTrickleBytesPerSecond = 1;
export const maxTrickleBytesPerSecond = 10_000_000;

/** A checked fault, as `POST /admin/faults` asked for it (issue 33). */
export interface FaultSpec {
  /** Only requests of this method; null for any. */
  readonly method: FaultMethod | null;
  /** The path pattern as given (URLPattern's pathname syntax); the host compiles it (PathMatcher). */
  readonly path: string;
  /** Only requests of this account (the path's `accounts/:account`, `/dle/:account`, or /event's svc_account); null for any. */
  readonly account: string | null;
  /** How many matching requests it answers before it is gone (1 or more). */
  readonly times: number;
  /** The status it answers; null: the request goes on to svc-hub after the delay (or is dropped). */
  readonly status: number | null;
  /** The body of its answer: a string as text/plain, an object or array as application/json; null for none. */
  readonly body: string | object | null;
  /** Headers added to its answer. */
  readonly headers: Readonly<Record<string, string>>;
  /** Milliseconds waited before anything else (0: none). */
  readonly delayMs: number;
  /** Close the connection without an answer (after the delay). */
  readonly drop: boolean;
  /** The chance that a matching request is answered by the fault (0..1); one it passes by is not counted. */
  readonly probability: number;
  /** Where the fault's draws start: the same seed draws the same sequence, so a test is repeatable; null: the host's randomness. */
  readonly seed: number | null;
  /** How the answer is spoiled, or null. */
  readonly malformed: FaultMalformation | null;
  /** Send the answer's body at this many bytes per second (faultTrickleChunkBytes at a time), or null. */
  readonly trickleBytesPerSecond: number | null;
  /** Only requests with every one of these headers (names in any case) and exactly these values. */
  readonly matchHeaders: Readonly<Record<string, string>>;
  /** Only requests whose JSON body holds a value at `path` (parseJsonPath), equal to `equals` when given; or null. */
  readonly matchJsonPath: { readonly path: string; readonly equals?: unknown } | null;
}

/** The bytes a trickled body is sent in: a tenth of a second's worth, at least one. */
export function faultTrickleChunkBytes(bytesPerSecond: number): number {
  return Math.max(1, Math.floor(bytesPerSecond / 10));
}

const fields = new Set([
  "method",
  "path",
  "account",
  "times",
  "status",
  "body",
  "headers",
  "delayMs",
  "drop",
  "probability",
  "seed",
  "malformed",
  "trickleBytesPerSecond",
  "matchHeaders",
  "matchJsonPath",
]);
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function refuse(parameter: string, problem: string): Result<never, ManagementError> {
  return err(managementError("invalidParameter", { parameter, problem }));
}

function isWholeNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}

/** Whether `path` is svc-hub's own admin API, which a fault never answers (the tools that set faults use it). */
export function isAdminPath(path: string): boolean {
  return path === "/admin" || path.startsWith("/admin/");
}

/**
 * Checks the body of `POST /admin/faults`: a JSON object of the FaultSpec fields only. A fault must do
 * something (a status, a delay or a drop); a body or headers need a status; a drop takes no status. Each
 * refusal is 400 1400 naming the field.
 */
export function validateFaultInput(input: unknown): Result<FaultSpec, ManagementError> {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return refuse("body", "must be a JSON object");
  const body = input as Record<string, unknown>;
  for (const name of Object.keys(body)) if (!fields.has(name)) return refuse(name, "is not a field of a fault");

  let method: FaultMethod | null = null;
  if (body.method !== undefined) {
    const upper = typeof body.method === "string" ? body.method.toUpperCase() : "";
    if (!(faultMethods as readonly string[]).includes(upper))
      return refuse("method", `must be one of ${faultMethods.join(", ")}`);
    method = upper as FaultMethod;
  }
  if (typeof body.path !== "string" || !(body.path.startsWith("/") || body.path.startsWith("*")))
    return refuse("path", "must be a path pattern starting with / (or *)");
  if (/[?#\s]/.test(body.path)) return refuse("path", "must be a path without a query, a fragment or white space");
  if (isAdminPath(body.path)) return refuse("path", "must not be under /admin, which is never faulted");
  let account: string | null = null;
  if (body.account !== undefined) {
    if (typeof body.account !== "string" || body.account === "") return refuse("account", "must be a non-empty string");
    account = body.account;
  }
  const times = body.times ?? 1;
  if (!isWholeNumber(times) || times < 1) return refuse("times", "must be a whole number of 1 or more");
  let status: number | null = null;
  if (body.status !== undefined) {
    // A 1xx is not a final answer: a fault answers one.
    if (!isWholeNumber(body.status) || body.status < 200 || body.status > 599)
      return refuse("status", "must be a whole number from 200 to 599");
    status = body.status;
  }
  let answerBody: string | object | null = null;
  if (body.body !== undefined && body.body !== null) {
    if (typeof body.body !== "string" && typeof body.body !== "object")
      return refuse("body", "must be a string (text/plain) or a JSON object or array (application/json)");
    answerBody = body.body;
  }
  const headers = readHeaders("headers", body.headers);
  if (!headers.ok) return headers;
  const delayMs = body.delayMs ?? 0;
  if (!isWholeNumber(delayMs) || delayMs < 0 || delayMs > maxFaultDelayMs)
    return refuse("delayMs", `must be a whole number of milliseconds from 0 to ${maxFaultDelayMs}`);
  const drop = body.drop ?? false;
  if (typeof drop !== "boolean") return refuse("drop", "must be true or false");
  if (drop && status !== null)
    return refuse("drop", "cannot be true with a status: a dropped connection has no answer");
  if (status === null && (answerBody !== null || Object.keys(headers.value).length > 0))
    return refuse("status", "is needed with a body or headers");
  const answer = readAnswerChanges(body);
  if (!answer.ok) return answer;
  const { malformed, trickleBytesPerSecond } = answer.value;
  if (drop && (malformed !== null || trickleBytesPerSecond !== null))
    return refuse("drop", "cannot be true with malformed or trickleBytesPerSecond: a dropped connection has no answer");
  if (status === null && !drop && delayMs === 0 && malformed === null && trickleBytesPerSecond === null)
    return refuse("status", "is needed, or delayMs, drop, malformed or trickleBytesPerSecond");
  const matching = readMatching(body);
  if (!matching.ok) return matching;
  return ok({
    method,
    path: body.path,
    account,
    times,
    status,
    body: answerBody,
    headers: headers.value,
    delayMs,
    drop,
    ...answer.value,
    ...matching.value,
  });
}

function readHeaders(field: string, input: unknown): Result<Record<string, string>, ManagementError> {
  const headers: Record<string, string> = {};
  if (input === undefined) return ok(headers);
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return refuse(field, "must be an object of header names to string values");
  for (const [name, value] of Object.entries(input)) {
    if (!headerName.test(name)) return refuse(field, `has a name that is not a header name: ${name}`);
    if (typeof value !== "string" || /[\r\n\0]/.test(value))
      return refuse(field, `must give ${name} a string value on one line`);
    headers[name] = value;
  }
  return ok(headers);
}

/** probability, seed, malformed and trickleBytesPerSecond (issue 43). */
function readAnswerChanges(
  body: Record<string, unknown>,
): Result<Pick<FaultSpec, "probability" | "seed" | "malformed" | "trickleBytesPerSecond">, ManagementError> {
  const probability = body.probability ?? 1;
  if (typeof probability !== "number" || !(probability >= 0 && probability <= 1))
    return refuse("probability", "must be a number from 0 to 1");
  let seed: number | null = null;
  if (body.seed !== undefined) {
    if (!isWholeNumber(body.seed) || !Number.isSafeInteger(body.seed)) return refuse("seed", "must be a whole number");
    seed = body.seed;
  }
  let malformed: FaultMalformation | null = null;
  if (body.malformed !== undefined) {
    if (!(faultMalformations as readonly unknown[]).includes(body.malformed))
      return refuse("malformed", `must be one of ${faultMalformations.join(", ")}`);
    malformed = body.malformed as FaultMalformation;
  }
  let trickleBytesPerSecond: number | null = null;
  if (body.trickleBytesPerSecond !== undefined) {
    const rate = body.trickleBytesPerSecond;
    if (!isWholeNumber(rate) || rate < minTrickleBytesPerSecond || rate > maxTrickleBytesPerSecond)
      return refuse(
        "trickleBytesPerSecond",
        `must be a whole number of bytes per second from ${minTrickleBytesPerSecond} to ${maxTrickleBytesPerSecond}`,
      );
    trickleBytesPerSecond = rate;
  }
  return ok({ probability, seed, malformed, trickleBytesPerSecond });
}

/** matchHeaders and matchJsonPath (issue 43). */
function readMatching(
  body: Record<string, unknown>,
): Result<Pick<FaultSpec, "matchHeaders" | "matchJsonPath">, ManagementError> {
  const matchHeaders = readHeaders("matchHeaders", body.matchHeaders);
  if (!matchHeaders.ok) return matchHeaders;
  if (body.matchJsonPath === undefined) return ok({ matchHeaders: matchHeaders.value, matchJsonPath: null });
  const given = body.matchJsonPath;
  if (typeof given !== "object" || given === null || Array.isArray(given))
    return refuse("matchJsonPath", 'must be an object such as {"path": "$.items[0].sku", "equals": "A1"}');
  for (const name of Object.keys(given))
    if (name !== "path" && name !== "equals") return refuse(`matchJsonPath/${name}`, "is not a field (path, equals)");
  const { path, equals } = given as { path?: unknown; equals?: unknown };
  if (typeof path !== "string" || parseJsonPath(path) === null)
    return refuse("matchJsonPath/path", 'must be a JSON path of .name, [0] or ["name"] steps, such as $.items[0].sku');
  return ok({
    matchHeaders: matchHeaders.value,
    matchJsonPath: equals === undefined ? { path } : { path, equals },
  });
}

/**
 * A path pattern made a test of a path by the host (svc-hub's HTTP adapter reads URLPattern's pathname syntax):
 * the platform's pattern language is not the core's to hold.
 */
export type PathMatcher = (path: string) => boolean;

/**
 * The account a request is for, as faults and the request journal read it: the segment after `accounts`
 * in a management path (`/v1/dle/accounts/acme/...`, `/v1/accounts/acme/...`), the first after `/dle/` for
 * a served data layer, `svc_account` of the query for the collection endpoint; null otherwise.
 */
export function accountOfRequest(path: string, query: string): string | null {
  if (path === "/event" || path === "/event/") {
    const account = firstQueryValue(query, "svc_account");
    return account === undefined || account === "" ? null : account;
  }
  const segments = path.split("/");
  if (segments[1] === "dle") return segments[2] ? decodeSegment(segments[2]) : null;
  const at = segments.indexOf("accounts");
  const account = at > 0 ? segments[at + 1] : undefined;
  return account ? decodeSegment(account) : null;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The value of the first pair named `wanted` in a query string, decoded as splitQueryString decodes it
 * (undefined when there is none). Only names with an escape or a `+` and the value found are decoded: the
 * account of every collected request is read this way, and decoding each of its parameters took a sixth of
 * the HTTP thread (bench/FINDINGS.md).
 */
export function firstQueryValue(query: string, wanted: string): string | undefined {
  for (const part of query.split("&")) {
    const equals = part.indexOf("=");
    const raw = equals < 0 ? part : part.slice(0, equals);
    const name = raw.includes("%") || raw.includes("+") ? decodeSegment(raw.replaceAll("+", " ")) : raw;
    if (part === "" || name !== wanted) continue;
    return equals < 0 ? "" : decodeSegment(part.slice(equals + 1).replaceAll("+", " "));
  }
  return undefined;
}

/** The name/value pairs of a query string (without its `?`), `+` a space; a bad escape is kept as sent. */
export function splitQueryString(query: string): Array<readonly [string, string]> {
  const pairs: Array<readonly [string, string]> = [];
  for (const part of query.split("&")) {
    if (part === "") continue;
    const equals = part.indexOf("=");
    const name = equals < 0 ? part : part.slice(0, equals);
    const value = equals < 0 ? "" : part.slice(equals + 1);
    pairs.push([decodeSegment(name.replaceAll("+", " ")), decodeSegment(value.replaceAll("+", " "))]);
  }
  return pairs;
}
