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
      if (code === 0x5c) index += 1; // a backslash escapes the next character, `\"` included
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

/**
 * DLE-ERR-01, DEC-DLE-03: the first problem of a parsed value: a key containing a period at any depth
 * (in nested objects and in objects inside arrays), or nesting deeper than `maxDepth`. Walks with an
 * explicit stack, never recursion.
 */
export function findStructureProblem(root: unknown, rules: JsonBodyRules): "too-deep" | "key-with-period" | null {
  const pending: Array<{ readonly node: unknown; readonly depth: number }> = [{ node: root, depth: 1 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { node, depth } = item;
    if (node === null || typeof node !== "object") continue;
    if (depth > rules.maxDepth) return "too-deep";
    if (Array.isArray(node)) {
      for (const child of node) pending.push({ node: child, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(node)) {
      if (key.includes(".")) return "key-with-period";
      pending.push({ node: (node as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
  return null;
}

/**
 * DLE-ERR-06, DLE-ERR-07, DLE-ERR-01, DEC-DLE-03: a body's text as a JSON object: not empty, nested at
 * most `maxDepth` levels (checked before parsing), valid JSON, an object (not an array, string, number,
 * boolean or null), and no key with a period at any depth. Never throws.
 */
export function readJsonObjectBody(text: string, rules: JsonBodyRules = defaultJsonBodyRules): Result<JsonObject, JsonBodyProblem> {
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
          if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value) && typeof context?.source === "string") {
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
  for (const [key, source] of largeIntegers.get(parsed) ?? []) if (exact?.has(key)) (parsed as Record<string, unknown>)[key] = source;
  const problem = findStructureProblem(parsed, rules);
  return problem === null ? ok(parsed as JsonObject) : err(problem);
}
