import { err, ok, type Result } from "../result.ts";

/**
 * Matching a request on its headers and on a value in its JSON body (issue 43): what a fault answers, and what
 * the request journal finds. Pure: the host reads the request (its headers as a lookup, its body as text).
 */

/** One step of a JSON path: an object's member or an array's index. */
export type JsonPathStep = string | number;

/** A JSON path read by readJsonPath, and the text it was read from. */
export interface JsonPath {
  readonly text: string;
  readonly steps: readonly JsonPathStep[];
}

const memberName = /^[A-Za-z_$][\w$-]*/;

/**
 * Reads a JSON path of the simple form every JSONPath dialect agrees on: `$`, then `.name`, `['name']` or
 * `["name"]`, and `[0]` steps (`$.items[0].sku`, `$['svc_event']`). Wildcards, filters and slices are refused
 * with a reason: a path must name one value.
 */
export function readJsonPath(text: string): Result<JsonPath, string> {
  if (!text.startsWith("$")) return err("must start with $ (such as $.items[0].sku)");
  const steps: JsonPathStep[] = [];
  let rest = text.slice(1);
  while (rest !== "") {
    if (rest.startsWith(".")) {
      const name = memberName.exec(rest.slice(1))?.[0];
      if (name === undefined) return err(`has no member name after "." at "${rest}"`);
      steps.push(name);
      rest = rest.slice(1 + name.length);
      continue;
    }
    const index = /^\[(\d+)\]/.exec(rest);
    if (index) {
      steps.push(Number(index[1]));
      rest = rest.slice(index[0].length);
      continue;
    }
    const quoted = /^\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/.exec(rest);
    if (quoted) {
      steps.push((quoted[1] ?? quoted[2] ?? "").replace(/\\(.)/g, "$1"));
      rest = rest.slice(quoted[0].length);
      continue;
    }
    return err(`must name one value with .name, ['name'] or [index] steps; "${rest}" is not one`);
  }
  return ok({ text, steps });
}

/** The value a path names in `json`, or undefined when there is none. */
export function valueAtJsonPath(json: unknown, path: JsonPath): unknown {
  let value = json;
  for (const step of path.steps) {
    if (typeof step === "number") {
      if (!Array.isArray(value)) return undefined;
      value = value[step];
    } else {
      if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, step))
        return undefined;
      value = (value as Record<string, unknown>)[step];
    }
  }
  return value;
}

/** Whether two JSON values are the same: objects by their members whatever their order. */
export function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right))
    return left.length === right.length && left.every((item, index) => sameJson(item, right[index]));
  const leftKeys = Object.keys(left);
  const rightRecord = right as Record<string, unknown>;
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every(
    (key) => Object.hasOwn(rightRecord, key) && sameJson((left as Record<string, unknown>)[key], rightRecord[key]),
  );
}

/** What a request's body must hold: a value at a JSON path, equal to `equals` when given, else any value. */
export interface BodyJsonMatch {
  readonly path: JsonPath;
  /** undefined: the path names any value (null included). */
  readonly equals?: unknown;
}

/**
 * Whether a body (its text, null for none) is JSON holding the match's value. A body that is not JSON, or a
 * path that names nothing, does not match.
 */
export function bodyMatchesJson(body: string | null, match: BodyJsonMatch): boolean {
  if (body === null) return false;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return false;
  }
  const found = valueAtJsonPath(json, match.path);
  if (found === undefined) return false;
  return match.equals === undefined || sameJson(found, match.equals);
}

/**
 * Whether a request has every header of `expected` (names in any case) with exactly that value; `headerOf`
 * answers a header's value (several joined by ", ", as fetch's Headers does) or null.
 */
export function headersMatch(
  expected: Readonly<Record<string, string>>,
  headerOf: (name: string) => string | null,
): boolean {
  for (const [name, value] of Object.entries(expected)) if (headerOf(name) !== value) return false;
  return true;
}
