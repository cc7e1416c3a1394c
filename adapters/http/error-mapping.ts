import { ValidationError } from "elysia";
import {
  type CollectError,
  type CollectErrorCode,
  collectError,
  describeError,
  type FileImportError,
  invalidRequestBecause,
  type ManagementError,
  type MomentsError,
  managementError,
  managementErrorBody,
  momentsError,
  ServiceBusyError,
  stackFramesOf,
} from "../../core/errors/index.ts";
import type { Logger } from "../../core/ports/index.ts";
import { isStorageUnavailable } from "../runtime/storage-errors.ts";
import { setCredentialedCors, setEventHeaders } from "./cors.ts";

export { isStorageUnavailable, StorageUnavailableError } from "../runtime/storage-errors.ts";

/**
 * The one place where errors become HTTP answers (DEC-GEN-01, DEC-GEN-07, COL-04, DEC-MOM-02).
 * Management APIs answer `{returnCode, message}`, the collection endpoint 400 with `X-Error` and no body,
 * the moments API and the admin upload's 409 (DEC-FIL-04) `{"message"}`.
 */
export type CatalogueError = ManagementError | CollectError | MomentsError | FileImportError;

export type ErrorStyle = "management" | "admin" | "collect" | "moments";

/** Which family of answers a path belongs to. */
export function errorStyleFor(pathname: string): ErrorStyle {
  if (pathname === "/event" || pathname.startsWith("/event/")) return "collect";
  if (pathname.startsWith("/personalization/")) return "moments";
  if (pathname === "/admin" || pathname.startsWith("/admin/")) return "admin";
  return "management";
}

const retryAfterSeconds = "1";

/** The path of a request's URL, also when the URL does not parse (the app refuses those with 400). */
export function pathnameOf(url: string): string {
  return URL.parse(url)?.pathname ?? rawPathOf(url);
}

/**
 * The path of a request as the log keeps it: a moments lookup's visitor segment, which may be a known visitor
 * ID holding an e-mail address (`__acme_main__5120_ann@example.com__`), becomes `…`. The log must not keep
 * personal data that a privacy deletion cannot reach (PRV-09).
 */
export function loggedPathOf(url: string): string {
  const path = pathnameOf(url);
  if (!path.startsWith("/personalization/")) return path;
  // By position, as the route reads it (/personalization/accounts/:a/profiles/:p/engines/:e/visitors/:v):
  // an account, profile or engine may itself be named "visitors".
  const segments = path.split("/");
  if (segments[8] === "visitors" && segments.length > 9 && segments[9] !== "") segments[9] = "…";
  return segments.join("/");
}

/**
 * The path of a URL as its text says it, without normalising anything: from the first "/" after "//" (or
 * the first "/" of a bare path) to the query. Where Elysia routes from (standardHostname: false).
 */
export function rawPathOf(url: string): string {
  const scheme = url.indexOf("//");
  const start = scheme < 0 ? url.indexOf("/") : url.indexOf("/", scheme + 2);
  return (start < 0 ? "/" : url.slice(start)).split(/[?#]/)[0] ?? "/";
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/**
 * The header that says why a request was refused where the body's wording is the contract's and the same for
 * every refusal (ManagementError.reason): not part of the interface, for the developer reading the answer.
 * The request log keeps it as `reason`.
 */
export const reasonHeader = "x-svc-hub-reason";

/** `text` as a header value: printable ASCII (anything else as `\uXXXX`), at most 300 characters. */
export function headerValueOf(text: string): string {
  const ascii = text.replace(
    /[^\x20-\x7e]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return ascii.length > 300 ? `${ascii.slice(0, 299)}~` : ascii;
}

export function catalogueResponse(error: CatalogueError): Response {
  switch (error.kind) {
    case "management":
      return jsonResponse(error.status, managementErrorBody(error), {
        ...(error.status === 503 ? { "retry-after": retryAfterSeconds } : {}),
        ...(error.reason === undefined ? {} : { [reasonHeader]: headerValueOf(error.reason) }),
      });
    case "collect":
      return new Response(null, {
        status: error.status,
        headers: {
          "x-error": error.xError,
          ...(error.status === 429 || error.status === 503 ? { "retry-after": retryAfterSeconds } : {}),
        },
      });
    case "moments":
    case "file-import":
      return jsonResponse(
        error.status,
        { message: error.message },
        error.status === 503 ? { "retry-after": retryAfterSeconds } : {},
      );
  }
}

/**
 * A catalogue error raised by a route handler once a use-case answered with a failure: `failWith(error)`.
 * onError turns it into the answer, so handlers keep a single success type for the OpenAPI document.
 */
export class CatalogueFailure extends Error {
  override readonly name = "CatalogueFailure";
  constructor(readonly error: CatalogueError) {
    super(error.kind === "collect" ? error.xError : error.message);
  }
}

export function failWith(error: CatalogueError): never {
  throw new CatalogueFailure(error);
}

/**
 * A request whose URL is not a parseable http:// URL: Bun gives a bare path when the Host header is not a
 * valid host (`a/b`, empty), and a URL that does not parse for others (`a:b`). Thrown by the app's first hook.
 */
export class InvalidHostError extends Error {
  override readonly name = "InvalidHostError";
}

function invalidHostFor(style: ErrorStyle): CatalogueError {
  switch (style) {
    case "collect":
      return collectError("invalidHost");
    case "moments":
      return momentsError("badRequest", { problem: "invalid Host header" });
    case "admin":
    case "management":
      return managementError("invalidHost");
  }
}

/** Why a body Elysia was to parse could not be, by what its Content-Type says it is. */
function unparsedBodyProblem(request: Request): string {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "application/json" || type.endsWith("+json")) return "not JSON";
  if (type === "application/x-www-form-urlencoded" || type === "multipart/form-data") return "not a valid form";
  return `not readable as ${type === "" ? "a body without a Content-Type" : type}`;
}

interface RefusalDetail {
  /** The part of the request refused (`/by`, `body`) and what is wrong with it, from a validation error. */
  readonly target?: string | undefined;
  readonly problem?: string | undefined;
  /** Why, in a sentence, when there is no part to name (ManagementError.reason). */
  readonly reason?: string;
}

function refusalFor(
  style: ErrorStyle,
  kind: "bad-request" | "not-found" | "unavailable" | "internal",
  detail?: RefusalDetail,
): CatalogueError {
  switch (style) {
    case "collect":
      return collectError(
        {
          "bad-request": "invalidJson",
          "not-found": "unknownPath",
          unavailable: "storageUnavailable",
          internal: "internalError",
        }[kind] as CollectErrorCode,
      );
    case "moments":
      if (kind === "bad-request")
        return momentsError("badRequest", { problem: detail?.target ?? "invalid parameters" });
      return momentsError(
        ({ "not-found": "engineNotFound", unavailable: "storageUnavailable", internal: "internalError" } as const)[
          kind
        ],
      );
    case "admin":
      if (kind === "bad-request" && detail?.target)
        return managementError("invalidParameter", {
          parameter: detail.target,
          problem: detail.problem ?? "not valid here",
        });
      break;
    case "management":
      break;
  }
  switch (kind) {
    case "bad-request": {
      const reason =
        detail?.reason ?? (detail?.target ? `${detail.target}: ${detail.problem ?? "not valid here"}` : undefined);
      return reason === undefined ? managementError("invalidRequest") : invalidRequestBecause(reason);
    }
    case "not-found":
      return managementError("resourceNotFound");
    case "unavailable":
      return managementError("storageUnavailable");
    case "internal":
      return managementError("internalError");
  }
}

/**
 * The first offending property of an Elysia validation error, as a path such as `/by` (or the part
 * validated), and what is wrong with it in TypeBox's words (`missing`, `expected boolean`).
 */
function validationDetail(error: unknown): { target: string | undefined; problem: string | undefined } {
  const all = (error as { all?: Array<{ path?: string; message?: string; schema?: { description?: unknown } }> }).all;
  const first = Array.isArray(all) ? all.find((entry) => entry.path) : undefined;
  const on = (error as { type?: string }).type;
  const target = first?.path ? first.path.replace(/^\//, "") : typeof on === "string" ? on : undefined;
  const message = first?.message?.trim();
  // "Expected union value" says nothing of what is taken; the field's description says it (`ISO 8601 time,
  // or epoch milliseconds`).
  const described = typeof first?.schema?.description === "string" ? first.schema.description : undefined;
  const problem = !message
    ? undefined
    : /required property/i.test(message)
      ? "missing"
      : /^expected union value$/i.test(message) && described
        ? `expected ${described.charAt(0).toLowerCase()}${described.slice(1)}`
        : `${message.charAt(0).toLowerCase()}${message.slice(1)}`;
  return { target, problem };
}

/**
 * Whether an Elysia validation error is about the answer a route built (it failed the route's own response
 * schema) rather than about the request: Elysia throws its ValidationError with type "response" then.
 */
function isResponseValidationError(error: unknown): boolean {
  return error instanceof ValidationError && error.type === "response";
}

/**
 * What to log of a failed response schema: where and why, not the answer itself (it may hold a visitor's
 * personal data, which the log must not keep after a deletion, PRV-09).
 */
function describeResponseValidation(error: unknown): { problems: Array<{ path?: string; message?: string }> } {
  const all = (error as { all?: Array<{ path?: string; message?: string }> }).all;
  return { problems: (Array.isArray(all) ? all : []).map(({ path, message }) => ({ path, message })) };
}

/**
 * Elysia's onError: its own parse, validation and not-found errors are remapped to the catalogue and never
 * shown raw; anything unexpected is logged in full and answered with the generic 500 that leaks nothing.
 * An answer that fails its route's response schema is the service's fault: the 500 too (DEC-GEN-07).
 */
/**
 * The 503 of a request that arrives before the service can answer it (the server listens while the store is
 * opened at start), in the style of its path, with Retry-After.
 */
export function unavailableResponse(request: Request, headers: Readonly<Record<string, string>> = {}): Response {
  const response = catalogueResponse(refusalFor(errorStyleFor(pathnameOf(request.url)), "unavailable"));
  for (const [name, value] of Object.entries(headers))
    if (!response.headers.has(name)) response.headers.set(name, value);
  return response;
}

/** The methods the app's routes take on a path, or none when no route has the path (RouteMethods). */
export type AllowedMethodsOf = (pathname: string) => readonly string[];

/**
 * The methods of each route path of an app, for the 405 of a path that exists with another method (RFC 9110:
 * with `Allow`), instead of the router's 404. Catch-all routes (`ALL`, `*`) are answers of their own and are
 * left out. One trailing "/" is forgiven, as the router forgives it.
 */
export function routeMethodsOf(
  routes: ReadonlyArray<{ readonly method: string; readonly path: string }>,
): AllowedMethodsOf {
  const byPattern = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const route of routes) {
    if (route.method === "ALL" || route.path.includes("*")) continue;
    const path = route.path.length > 1 ? route.path.replace(/\/$/, "") : route.path;
    const source = path
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    const entry = byPattern.get(source) ?? { pattern: new RegExp(`^${source}/?$`), methods: new Set<string>() };
    entry.methods.add(route.method);
    if (route.method === "GET") entry.methods.add("HEAD");
    byPattern.set(source, entry);
  }
  const entries = [...byPattern.values()];
  return (pathname) => {
    const methods = new Set<string>();
    for (const { pattern, methods: taken } of entries)
      if (pattern.test(pathname)) for (const method of taken) methods.add(method);
    return [...methods].sort();
  };
}

function isServedDataLayerPath(pathname: string): boolean {
  return pathname === "/dle" || pathname.startsWith("/dle/");
}

export function mapUnhandledError(logger: Logger, allowedMethodsOf: AllowedMethodsOf = () => []) {
  return ({
    code,
    error,
    request,
    set,
  }: {
    code: string | number;
    error: unknown;
    request: Request;
    set: { headers: Record<string, string | number> };
  }): Response => {
    const pathname = pathnameOf(request.url);
    const loggedPath = loggedPathOf(request.url);
    const style = errorStyleFor(pathname);
    if (style === "collect") setEventHeaders(request, set.headers);
    // DEC-MOM-04: the moments API's refusals are readable cross-origin, the router's own included.
    if (style === "moments") setCredentialedCors(request, set.headers);
    // DEC-DLE-07: what is under /dle is public, its refusals too (a page can read why its script is missing).
    if (isServedDataLayerPath(pathname)) set.headers["access-control-allow-origin"] = "*";
    if (error instanceof CatalogueFailure) return catalogueResponse(error.error);
    if (error instanceof InvalidHostError) return catalogueResponse(invalidHostFor(style));
    switch (code) {
      case "NOT_FOUND": {
        // A management path that exists with other methods: 405 naming them, as /event and moments do.
        const allowed = style === "management" || style === "admin" ? allowedMethodsOf(pathname) : [];
        if (allowed.length > 0 && !allowed.includes(request.method)) {
          set.headers.allow = allowed.join(", ");
          return catalogueResponse(managementError("methodNotAllowed"));
        }
        return catalogueResponse(refusalFor(style, "not-found"));
      }
      case "PARSE": {
        const problem = unparsedBodyProblem(request);
        // The admin API names the part refused in its message; the contract's APIs keep their wording (a reason header).
        return catalogueResponse(
          refusalFor(
            style,
            "bad-request",
            style === "admin" ? { target: "body", problem } : { reason: `the body is ${problem}` },
          ),
        );
      }
      case "VALIDATION":
        if (isResponseValidationError(error)) {
          logger.error("response failed its schema", {
            method: request.method,
            path: loggedPath,
            ...describeResponseValidation(error),
          });
          return catalogueResponse(refusalFor(style, "internal"));
        }
        return catalogueResponse(refusalFor(style, "bad-request", validationDetail(error)));
      case "INVALID_COOKIE_SIGNATURE":
        return catalogueResponse(managementError("authenticationFailed"));
    }
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      // A body nested too deep for the validator (Elysia's ValidationError stringifies the value): the
      // client's input, so a 400 and not the 500 of an unexpected failure.
      logger.warn("input nested too deep", { method: request.method, path: loggedPath });
      return catalogueResponse(
        refusalFor(style, "bad-request", { reason: "the body is nested too deep to be checked" }),
      );
    }
    if (request.signal.aborted) {
      // The client closed the connection before its request was read (a slow or stalled upload): no one
      // receives the answer, and it is not a failure of the service.
      logger.info("client closed the connection", { method: request.method, path: loggedPath });
      return catalogueResponse(
        refusalFor(style, "bad-request", { reason: "the client closed the connection before the request was read" }),
      );
    }
    if (error instanceof ServiceBusyError) {
      logger.warn("service busy", { method: request.method, path: loggedPath, error: describeError(error) });
      return catalogueResponse(managementError("serviceBusy"));
    }
    if (isStorageUnavailable(error)) {
      logger.warn("storage unavailable", { method: request.method, path: loggedPath, error: describeError(error) });
      return catalogueResponse(refusalFor(style, "unavailable"));
    }
    logger.error("unexpected error", {
      method: request.method,
      path: loggedPath,
      error: describeError(error),
      stack: stackFramesOf(error),
    });
    return catalogueResponse(refusalFor(style, "internal"));
  };
}
