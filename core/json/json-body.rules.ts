import { err, ok, type Result } from "../result.ts";

/**
 * JSON body rules shared by the APIs that take a JSON object (hosted data layer DEC-DLE-03; the collection
 * endpoint's POST, DEC-COL-04, follows the same limits). Each API maps a problem to its own catalogue entry.
 */

/** A parsed JSON object. Its keys are own properties (JSON.parse makes `__proto__` an own key, never a prototype). */
export type JsonObject = { readonly [key: string]: unknown };

export type JsonBodyProblem = "empty" | "too-deep" | "invalid-json" | "not-an-object" | "key-with-period";

export interface JsonBodyRules {
  /** The deepest nesting allowed; the top-level object is level 1 and an array is a level too (DEC-DLE-03). */
  readonly maxDepth: number;
  /**
   * Top-level properties whose whole numbers past 2^53 are read as the text the client sent, not as the
   * number JSON.parse rounds them to (a 64-bit numeric visitor ID must stay that ID).
   */
  readonly exactLargeIntegers?: ReadonlySet<string>;
}

/** DEC-DLE-03: 64 levels. */
export const defaultJsonBodyRules: JsonBodyRules = { maxDepth: 64 };

/**
 * DEC-DLE-03: how many objects and arrays `text` opens inside each other, counting no further than
 * `stopAbove + 1`. A linear scan that skips strings: it neither parses nor recurses, so no input can exhaust
 * the stack, and JSON.parse only ever sees text of bounded depth. For valid JSON this is the nesting depth.
 */
export function measureNesting(text: string, stopAbove: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // a backslash escapes the next character, `\"` included
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (code === 0x7d || code === 0x5d) {
      depth -= 1;
    }
  }
  return deepest;
}

/** A structure problem of a parsed value and where it is, as a JSON Pointer (`/a/0/c.d`, RFC 6901). */
export interface StructureProblem {
  readonly kind: "too-deep" | "key-with-period";
  readonly at: string;
}

interface Visit {
  readonly node: unknown;
  readonly depth: number;
  /** How the node was reached, kept so that its path is only spelled out when a problem is found there. */
  readonly parent: Visit | null;
  readonly step: string;
}

function pointerOf(visit: Visit, last?: string): string {
  const steps: string[] = last === undefined ? [] : [last];
  for (let at: Visit | null = visit; at?.parent; at = at.parent) steps.push(at.step);
  return steps
    .reverse()
    .map((step) => `/${step.replaceAll("~", "~0").replaceAll("/", "~1")}`)
    .join("");
}

/**
 * DLE-ERR-01, DEC-DLE-03: the first problem of a parsed value and where it is: a key containing a period at
 * any depth (in nested objects and in objects inside arrays), or nesting deeper than `maxDepth`. Walks with
 * an explicit stack, never recursion.
 */
export function locateStructureProblem(root: unknown, rules: JsonBodyRules): StructureProblem | null {
  const pending: Visit[] = [{ node: root, depth: 1, parent: null, step: "" }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { node, depth } = item;
    if (node === null || typeof node !== "object") continue;
    if (depth > rules.maxDepth) return { kind: "too-deep", at: pointerOf(item) };
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index += 1)
        pending.push({ node: node[index], depth: depth + 1, parent: item, step: String(index) });
      continue;
    }
    for (const key of Object.keys(node)) {
      if (key.includes(".")) return { kind: "key-with-period", at: pointerOf(item, key) };
      pending.push({ node: (node as Record<string, unknown>)[key], depth: depth + 1, parent: item, step: key });
    }
  }
  return null;
}

/** DLE-ERR-01, DEC-DLE-03: the first problem of a parsed value (locateStructureProblem), without where. */
export function findStructureProblem(root: unknown, rules: JsonBodyRules): "too-deep" | "key-with-period" | null {
  return locateStructureProblem(root, rules)?.kind ?? null;
}

/**
 * DLE-ERR-06, DLE-ERR-07, DLE-ERR-01, DEC-DLE-03: a body's text as a JSON object: not empty, nested at
 * most `maxDepth` levels (checked before parsing), valid JSON, an object (not an array, string, number,
 * boolean or null), and no key with a period at any depth. Never throws.
 */
export function readJsonObjectBody(
  text: string,
  rules: JsonBodyRules = defaultJsonBodyRules,
): Result<JsonObject, JsonBodyProblem> {
  if (text.trim() === "") return err("empty");
  if (measureNesting(text, rules.maxDepth) > rules.maxDepth) return err("too-deep");
  let parsed: unknown;
  // The source text of each whole number past 2^53, by the object holding it (JSON.parse's reviver is given
  // the number's text where the engine supports it, as Bun's and Deno's do).
  const largeIntegers = new Map<object, Map<string, string>>();
  // A reviver costs a call for every value: only where the text holds a number of 16 digits or more.
  const exact = rules.exactLargeIntegers && /\d{16}/.test(text) ? rules.exactLargeIntegers : undefined;
  try {
    parsed = exact
      ? JSON.parse(text, function (this: object, key: string, value: unknown, context?: { source?: string }) {
          if (
            typeof value === "number" &&
            Number.isInteger(value) &&
            !Number.isSafeInteger(value) &&
            typeof context?.source === "string"
          ) {
            const held = largeIntegers.get(this) ?? new Map<string, string>();
            held.set(key, context.source);
            largeIntegers.set(this, held);
          }
          return value;
        } as (key: string, value: unknown) => unknown)
      : JSON.parse(text);
  } catch {
    return err("invalid-json");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return err("not-an-object");
  for (const [key, source] of largeIntegers.get(parsed) ?? [])
    if (exact?.has(key)) (parsed as Record<string, unknown>)[key] = source;
  const problem = findStructureProblem(parsed, rules);
  return problem === null ? ok(parsed as JsonObject) : err(problem);
}

/**
 * What a refused body's problem is, in words for the client and the log: which key holds a period and where,
 * what the body is instead of an object. Parses `text` again, so it is for refusals only. Quotes no value.
 */
export function describeJsonBodyProblem(
  text: string,
  problem: JsonBodyProblem,
  rules: JsonBodyRules = defaultJsonBodyRules,
): string {
  switch (problem) {
    case "empty":
      return "the body is empty";
    case "too-deep":
      return `the body nests objects and arrays deeper than ${rules.maxDepth} levels`;
    case "invalid-json":
      return "the body is not valid JSON";
    case "not-an-object": {
      const value: unknown = JSON.parse(text);
      const found = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
      return `the body must be a JSON object, not ${found}`;
    }
    case "key-with-period": {
      const located = locateStructureProblem(JSON.parse(text), rules);
      return `no key may hold a period (.), and ${located?.at ?? "a key"} does`;
    }
  }
}
