import { type ManagementError, managementError } from "../errors/index.ts";
import { err, ok, type Result } from "../result.ts";

/** The methods a fault can be limited to (none: any method). */
export const faultMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type FaultMethod = (typeof faultMethods)[number];

/** The longest wait a fault may add before it answers (or before the request goes on). */
export const maxFaultDelayMs = 60_000;

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
}

const fields = new Set(["method", "path", "account", "times", "status", "body", "headers", "delayMs", "drop"]);
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
  const headers: Record<string, string> = {};
  if (body.headers !== undefined) {
    if (typeof body.headers !== "object" || body.headers === null || Array.isArray(body.headers))
      return refuse("headers", "must be an object of header names to string values");
    for (const [name, value] of Object.entries(body.headers)) {
      if (!headerName.test(name)) return refuse("headers", `has a name that is not a header name: ${name}`);
      if (typeof value !== "string" || /[\r\n\0]/.test(value))
        return refuse("headers", `must give ${name} a string value on one line`);
      headers[name] = value;
    }
  }
  const delayMs = body.delayMs ?? 0;
  if (!isWholeNumber(delayMs) || delayMs < 0 || delayMs > maxFaultDelayMs)
    return refuse("delayMs", `must be a whole number of milliseconds from 0 to ${maxFaultDelayMs}`);
  const drop = body.drop ?? false;
  if (typeof drop !== "boolean") return refuse("drop", "must be true or false");
  if (drop && status !== null)
    return refuse("drop", "cannot be true with a status: a dropped connection has no answer");
  if (status === null && (answerBody !== null || Object.keys(headers).length > 0))
    return refuse("status", "is needed with a body or headers");
  if (status === null && !drop && delayMs === 0) return refuse("status", "is needed, or delayMs, or drop");
  return ok({ method, path: body.path, account, times, status, body: answerBody, headers, delayMs, drop });
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
    const account = splitQueryString(query).find(([name]) => name === "svc_account")?.[1];
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
