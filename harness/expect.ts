import { describeAnswer, type HttpAnswer, ScenarioFailure } from "./client.ts";

/** Assertions for scenarios: each failure says which request it is about, what was expected and what the target answered. */
function show(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value, null, 0);
  return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export function fail(message: string): never {
  throw new ScenarioFailure(message);
}

/**
 * A failure message about `answer`: it starts with the request and ends with what came back, so that a
 * reader sees both without the scenario's code. Without an answer, the message as it is.
 */
export function about(answer: HttpAnswer | undefined, message: string): string {
  if (!answer) return message;
  const head = message.startsWith(`${answer.request}:`) ? message : `${answer.request}: ${message}`;
  return `${head} (answered ${describeAnswer(answer)})`;
}

/** Fails with `message` unless `condition` holds; given the answer the condition is about, the message names it and its body. */
export function expectTrue(condition: unknown, message: string, answer?: HttpAnswer): asserts condition {
  if (!condition) fail(about(answer, message));
}

/** Fails unless `actual` deep-equals `expected`; given the answer they come from, the message names it and its body. */
export function expectEqual<T>(actual: T, expected: T, what: string, answer?: HttpAnswer): void {
  if (!deepEqual(actual, expected)) fail(about(answer, `${what}: expected ${show(expected)}, got ${show(actual)}`));
}

/** The status, or one of the statuses, expected. */
export function expectStatus(answer: HttpAnswer, expected: number | readonly number[]): void {
  const allowed = typeof expected === "number" ? [expected] : expected;
  if (!allowed.includes(answer.status))
    fail(`${answer.request}: expected status ${allowed.join(" or ")}, got ${describeAnswer(answer)}`);
}

/** The body as a JSON object (not an array or null); anything else fails, naming the request and what came back. */
export function jsonObject(answer: HttpAnswer): Record<string, unknown> {
  const body = answer.json<unknown>();
  if (body === null || typeof body !== "object" || Array.isArray(body)) fail(about(answer, "expected a JSON object"));
  return body as Record<string, unknown>;
}

/** The body as a JSON array; anything else fails, naming the request and what came back. */
export function jsonArray(answer: HttpAnswer): unknown[] {
  const body = answer.json<unknown>();
  if (!Array.isArray(body)) fail(about(answer, "expected a JSON array"));
  return body;
}

/** A field of a JSON object body, checked by `check` (say, `isString`); anything else fails, naming the request and the body. */
export function jsonField<T>(
  answer: HttpAnswer,
  field: string,
  check: (value: unknown) => value is T,
  shape: string,
): T {
  const value = jsonObject(answer)[field];
  if (!check(value)) fail(about(answer, `expected ${field} to be ${shape}, got ${show(value)}`));
  return value;
}

export const isString = (value: unknown): value is string => typeof value === "string";
export const isNonEmptyString = (value: unknown): value is string => typeof value === "string" && value !== "";
export const isInteger = (value: unknown): value is number => Number.isInteger(value);
export const isArray = (value: unknown): value is unknown[] => Array.isArray(value);
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** A header of the answer, present and, when given, equal to `expected` or matching it; a failure shows the answer. */
export function expectHeader(answer: HttpAnswer, name: string, expected?: string | RegExp): string {
  const value = answer.headers.get(name);
  if (value === null) fail(about(answer, `expected header ${name}, it is missing`));
  if (typeof expected === "string" && value !== expected)
    fail(about(answer, `header ${name}: expected ${show(expected)}, got ${show(value)}`));
  if (expected instanceof RegExp && !expected.test(value))
    fail(about(answer, `header ${name}: expected to match ${expected}, got ${show(value)}`));
  return value;
}

/** DEC-GEN-01: a JSON `{returnCode, message}` body with Content-Type application/json, and optionally exact values. */
export function expectErrorBody(
  answer: HttpAnswer,
  status: number,
  returnCode?: number,
  message?: string,
): { returnCode: number; message: string } {
  expectStatus(answer, status);
  expectHeader(answer, "content-type", /^application\/json\b/);
  const body = answer.json<Record<string, unknown>>();
  expectTrue(isPlainObject(body), `${answer.request}: error body must be a JSON object, got ${show(body)}`);
  expectTrue(
    Number.isInteger(body.returnCode),
    `${answer.request}: error body needs an integer returnCode, got ${show(body)}`,
  );
  expectTrue(
    typeof body.message === "string",
    `${answer.request}: error body needs a string message, got ${show(body)}`,
  );
  // The answer's message often says why the code differs (which field, which rule).
  if (returnCode !== undefined && body.returnCode !== returnCode)
    fail(
      `${answer.request}: returnCode: expected ${returnCode}, got ${body.returnCode} with message ${show(body.message)}`,
    );
  if (message !== undefined) expectEqual(body.message, message, `${answer.request}: message`);
  return body as { returnCode: number; message: string };
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
