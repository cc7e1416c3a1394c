import { type ManagementError, managementError } from "../errors/index.ts";
import { err, ok, type Result } from "../result.ts";
import type { PathMatcher } from "./fault-plan.rules.ts";
import { splitQueryString } from "./fault-plan.rules.ts";
import type { RequestJournalEntry } from "./request-journal.ts";

/**
 * Matching the request journal's entries (issue 43, as WireMock's request patterns): by method, a pattern of
 * the path as sent, query parameters, headers, a body's JSON paths, the status and the account; and for a
 * pattern that matched nothing, which requests came closest and what differed.
 */

/** How a query parameter or a header is compared: equal to a text, containing one, or absent. */
export type ValueMatch = { readonly equals: string } | { readonly contains: string } | { readonly absent: true };

/** A step of a JSON path: a member's name or an array's index. */
export type JsonPathStep = string | number;

/** A value a body's JSON path must hold: equal (as JSON) to `equals`, or a string containing `contains`. */
export interface BodyMatch {
  /** The path as given (`$.events[0].name`), for differences. */
  readonly path: string;
  readonly steps: readonly JsonPathStep[];
  readonly expected: { readonly equals: unknown } | { readonly contains: string };
}

/** A checked matcher (the `path` pattern compiled by the host). Every criterion given must hold. */
export interface RequestMatcher {
  readonly method: string | null;
  readonly path: { readonly pattern: string; readonly test: PathMatcher } | null;
  readonly query: ReadonlyArray<readonly [string, ValueMatch]>;
  /** Lower-case names. */
  readonly headers: ReadonlyArray<readonly [string, ValueMatch]>;
  readonly body: readonly BodyMatch[];
  readonly status: number | null;
  readonly account: string | null;
}

/** One criterion a request did not meet: what the matcher asked, and what the request had (null: nothing). */
export interface RequestDifference {
  /** `method`, `path`, `status`, `account`, `query <name>`, `header <name>` or `body <JSON path>`. */
  readonly field: string;
  readonly expected: string;
  readonly actual: string | null;
}

const fields = new Set(["method", "path", "query", "headers", "body", "status", "account"]);

function refuse(parameter: string, problem: string): Result<never, ManagementError> {
  return err(managementError("invalidParameter", { parameter, problem }));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `"text"`, `{"equals": "text"}`, `{"contains": "text"}` or `{"absent": true}`. */
function readValueMatch(value: unknown): ValueMatch | null {
  if (typeof value === "string") return { equals: value };
  if (!isObject(value) || Object.keys(value).length !== 1) return null;
  if (typeof value.equals === "string") return { equals: value.equals };
  if (typeof value.contains === "string") return { contains: value.contains };
  if (value.absent === true) return { absent: true };
  return null;
}

function readValueMatches(
  parameter: string,
  value: unknown,
  lowerCase: boolean,
): Result<Array<readonly [string, ValueMatch]>, ManagementError> {
  if (!isObject(value)) return refuse(parameter, "must be an object of names to matches");
  const matches: Array<readonly [string, ValueMatch]> = [];
  for (const [name, given] of Object.entries(value)) {
    const match = readValueMatch(given);
    if (match === null)
      return refuse(parameter, `${name} must be a string, or {"equals": …}, {"contains": …} or {"absent": true}`);
    matches.push([lowerCase ? name.toLowerCase() : name, match]);
  }
  return ok(matches);
}

/**
 * A JSON path of the few forms a test needs: `$` then `.name`, `[0]` or `["name"]` (or `['name']`) steps;
 * the `$` and the first dot may be left out (`events[0].name`). Null when it is not one.
 */
export function parseJsonPath(path: string): JsonPathStep[] | null {
  const steps: JsonPathStep[] = [];
  let rest = path.trim();
  if (rest.startsWith("$")) rest = rest.slice(1);
  else if (rest !== "" && !rest.startsWith(".") && !rest.startsWith("[")) rest = `.${rest}`;
  const step = /^(?:\.([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|\['((?:[^'\\]|\\.)*)'\])/;
  while (rest !== "") {
    const found = step.exec(rest);
    if (found === null) return null;
    const [whole, name, index, doubleQuoted, singleQuoted] = found;
    if (name !== undefined) steps.push(name);
    else if (index !== undefined) steps.push(Number(index));
    else steps.push((doubleQuoted ?? singleQuoted ?? "").replace(/\\(.)/g, "$1"));
    rest = rest.slice(whole.length);
  }
  return steps;
}

function readBodyMatches(value: unknown): Result<BodyMatch[], ManagementError> {
  const list = Array.isArray(value) ? value : [value];
  const matches: BodyMatch[] = [];
  for (const given of list) {
    if (!isObject(given) || typeof given.path !== "string")
      return refuse(
        "body",
        'must be {"path": "$.…", "equals": …} or {"path": "$.…", "contains": "…"}, or a list of them',
      );
    const steps = parseJsonPath(given.path);
    if (steps === null)
      return refuse("body", `has a path that is not a JSON path ($.name, [0], ["name"]): ${given.path}`);
    const extra = Object.keys(given).filter((name) => name !== "path");
    if (extra.length !== 1) return refuse("body", `${given.path} needs one of equals or contains`);
    if ("equals" in given) matches.push({ path: given.path, steps, expected: { equals: given.equals } });
    else if (typeof given.contains === "string")
      matches.push({ path: given.path, steps, expected: { contains: given.contains } });
    else return refuse("body", `${given.path} needs equals (any JSON) or contains (a string)`);
  }
  return ok(matches);
}

/**
 * Checks the matcher of `POST /admin/requests/find` and `/count` (issue 43): a JSON object of the fields
 * method, path, query, headers, body, status and account, each optional; `compilePath` makes the path pattern a
 * test (the host's URLPattern). Each refusal is 400 1400 naming the field.
 */
export function validateRequestMatcher(
  input: unknown,
  compilePath: (pattern: string) => Result<PathMatcher, string>,
): Result<RequestMatcher, ManagementError> {
  if (input === undefined || input === null) input = {};
  if (!isObject(input)) return refuse("body", "must be a JSON object");
  for (const name of Object.keys(input)) if (!fields.has(name)) return refuse(name, "is not a field of a matcher");
  let method: string | null = null;
  if (input.method !== undefined) {
    if (typeof input.method !== "string" || input.method === "")
      return refuse("method", "must be a method (GET, POST, …)");
    method = input.method.toUpperCase();
  }
  let path: RequestMatcher["path"] = null;
  if (input.path !== undefined) {
    if (typeof input.path !== "string" || !(input.path.startsWith("/") || input.path.startsWith("*")))
      return refuse("path", "must be a path pattern starting with / (or *)");
    const test = compilePath(input.path);
    if (!test.ok) return refuse("path", test.error);
    path = { pattern: input.path, test: test.value };
  }
  const query = input.query === undefined ? ok([]) : readValueMatches("query", input.query, false);
  if (!query.ok) return query;
  const headers = input.headers === undefined ? ok([]) : readValueMatches("headers", input.headers, true);
  if (!headers.ok) return headers;
  const body = input.body === undefined ? ok([]) : readBodyMatches(input.body);
  if (!body.ok) return body;
  let status: number | null = null;
  if (input.status !== undefined) {
    if (typeof input.status !== "number" || !Number.isInteger(input.status) || input.status < 100 || input.status > 599)
      return refuse("status", "must be a whole number from 100 to 599");
    status = input.status;
  }
  let account: string | null = null;
  if (input.account !== undefined) {
    if (typeof input.account !== "string" || input.account === "")
      return refuse("account", "must be a non-empty string");
    account = input.account;
  }
  return ok({ method, path, query: query.value, headers: headers.value, body: body.value, status, account });
}

function describeValueMatch(match: ValueMatch): string {
  if ("equals" in match) return JSON.stringify(match.equals);
  if ("contains" in match) return `containing ${JSON.stringify(match.contains)}`;
  return "absent";
}

function valueMeets(match: ValueMatch, values: readonly string[]): boolean {
  if ("absent" in match) return values.length === 0;
  if ("equals" in match) return values.includes(match.equals);
  return values.some((value) => value.includes(match.contains));
}

function shownValues(values: readonly string[]): string | null {
  return values.length === 0 ? null : values.map((value) => JSON.stringify(value)).join(", ");
}

/** A body's content as its JSON paths read it: JSON, or a form's fields as an object; null when neither. */
function bodyValueOf(entry: RequestJournalEntry): unknown {
  const body = entry.request.body;
  if (body === null || !("text" in body)) return null;
  if ((entry.request.headers["content-type"] ?? "").toLowerCase().includes("x-www-form-urlencoded")) {
    const form: Record<string, string | string[]> = {};
    for (const [name, value] of splitQueryString(body.text)) {
      const seen = form[name];
      form[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
    return form;
  }
  try {
    return JSON.parse(body.text);
  } catch {
    return null;
  }
}

const missing = Symbol("missing");

function valueAt(value: unknown, steps: readonly JsonPathStep[]): unknown {
  let at: unknown = value;
  for (const step of steps) {
    if (typeof step === "number" ? !Array.isArray(at) : at === null || typeof at !== "object" || Array.isArray(at))
      return missing;
    if (!Object.hasOwn(at as object, step)) return missing;
    at = (at as Record<string | number, unknown>)[step];
  }
  return at;
}

function jsonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every(
    (key) =>
      Object.hasOwn(b, key) && jsonEquals((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/**
 * Whether a body's text is JSON holding a value at `steps`, equal (as JSON) to `equals` when given: how a fault
 * matches on a request's body (issue 43). A body that is not JSON, or none, holds nothing.
 */
export function jsonBodyHolds(body: string | null, steps: readonly JsonPathStep[], equals?: unknown): boolean {
  if (body === null) return false;
  let content: unknown;
  try {
    content = JSON.parse(body);
  } catch {
    return false;
  }
  const found = valueAt(content, steps);
  return found !== missing && (equals === undefined || jsonEquals(found, equals));
}

function bodyDifference(match: BodyMatch, content: unknown): RequestDifference | null {
  const found = valueAt(content, match.steps);
  const expected = match.expected;
  const meets =
    found !== missing &&
    ("equals" in expected
      ? jsonEquals(found, expected.equals)
      : typeof found === "string" && found.includes(expected.contains));
  if (meets) return null;
  return {
    field: `body ${match.path}`,
    expected:
      "equals" in expected ? JSON.stringify(expected.equals) : `containing ${JSON.stringify(expected.contains)}`,
    actual: found === missing ? null : JSON.stringify(found),
  };
}

/** The path of an entry's `url` as sent, and its query's parameters (secrets as "[redacted]"). */
function splitUrl(url: string): { path: string; parameters: Array<readonly [string, string]> } {
  const question = url.indexOf("?");
  if (question < 0) return { path: url, parameters: [] };
  return { path: url.slice(0, question), parameters: splitQueryString(url.slice(question + 1)) };
}

/**
 * What `entry` does not meet of `matcher`, criterion by criterion (none: it matches). The entry is read as the
 * journal answers it: a secret's value reads "[redacted]" here too.
 */
export function differencesOf(matcher: RequestMatcher, entry: RequestJournalEntry): RequestDifference[] {
  const differences: RequestDifference[] = [];
  const { path, parameters } = splitUrl(entry.url);
  if (matcher.method !== null && entry.method !== matcher.method)
    differences.push({ field: "method", expected: matcher.method, actual: entry.method });
  if (matcher.path !== null && !matcher.path.test(path))
    differences.push({ field: "path", expected: matcher.path.pattern, actual: path });
  if (matcher.status !== null && entry.status !== matcher.status)
    differences.push({
      field: "status",
      expected: String(matcher.status),
      actual: entry.status === null ? null : String(entry.status),
    });
  if (matcher.account !== null && entry.account !== matcher.account)
    differences.push({ field: "account", expected: matcher.account, actual: entry.account });
  for (const [name, match] of matcher.query) {
    const values = parameters.filter(([given]) => given === name).map(([, value]) => value);
    if (!valueMeets(match, values))
      differences.push({ field: `query ${name}`, expected: describeValueMatch(match), actual: shownValues(values) });
  }
  for (const [name, match] of matcher.headers) {
    const value = entry.request.headers[name];
    const values = value === undefined ? [] : [value];
    if (!valueMeets(match, values))
      differences.push({ field: `header ${name}`, expected: describeValueMatch(match), actual: shownValues(values) });
  }
  if (matcher.body.length > 0) {
    const content = bodyValueOf(entry);
    for (const match of matcher.body) {
      const difference = bodyDifference(match, content);
      if (difference !== null) differences.push(difference);
    }
  }
  return differences;
}

/** How far a difference puts a request from the pattern: a wrong path or method weighs most (as WireMock's). */
function weightOfDifference(difference: RequestDifference): number {
  if (difference.field === "path") return 3;
  if (difference.field === "method") return 2;
  return 1;
}

/** The `count` closest of `misses` (given newest first): fewest and lightest differences first, newest first among equals. */
export function rankNearMisses<T extends { readonly differences: readonly RequestDifference[] }>(
  misses: readonly T[],
  count: number,
): T[] {
  const distance = (miss: T) => miss.differences.reduce((sum, each) => sum + weightOfDifference(each), 0);
  return misses
    .map((miss, order) => ({ miss, order, distance: distance(miss) }))
    .sort((a, b) => a.distance - b.distance || a.order - b.order)
    .slice(0, count)
    .map(({ miss }) => miss);
}
