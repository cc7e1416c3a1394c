import { ScenarioFailure, type HttpAnswer } from "./client.ts";

/** Assertions for scenarios: each failure says which request it is about, what was expected and what the target answered. */
function show(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value, null, 0);
  return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export function fail(message: string): never {
  throw new ScenarioFailure(message);
}

export function expectTrue(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}

export function expectEqual<T>(actual: T, expected: T, what: string): void {
  if (!deepEqual(actual, expected)) fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

export function expectStatus(answer: HttpAnswer, expected: number): void {
  if (answer.status !== expected) fail(`${answer.request}: expected status ${expected}, got ${answer.status} with body ${show(answer.text.slice(0, 300))}`);
}

export function expectHeader(answer: HttpAnswer, name: string, expected?: string | RegExp): string {
  const value = answer.headers.get(name);
  if (value === null) fail(`${answer.request}: expected header ${name}, it is missing`);
  if (typeof expected === "string" && value !== expected) fail(`${answer.request}: header ${name}: expected ${show(expected)}, got ${show(value)}`);
  if (expected instanceof RegExp && !expected.test(value)) fail(`${answer.request}: header ${name}: expected to match ${expected}, got ${show(value)}`);
  return value;
}

/** DEC-GEN-01: a JSON `{returnCode, message}` body with Content-Type application/json, and optionally exact values. */
export function expectErrorBody(answer: HttpAnswer, status: number, returnCode?: number, message?: string): { returnCode: number; message: string } {
  expectStatus(answer, status);
  expectHeader(answer, "content-type", /^application\/json\b/);
  const body = answer.json<Record<string, unknown>>();
  expectTrue(body !== null && typeof body === "object" && !Array.isArray(body), `${answer.request}: error body must be a JSON object, got ${show(body)}`);
  expectTrue(Number.isInteger(body.returnCode), `${answer.request}: error body needs an integer returnCode, got ${show(body)}`);
  expectTrue(typeof body.message === "string", `${answer.request}: error body needs a string message, got ${show(body)}`);
  if (returnCode !== undefined) expectEqual(body.returnCode, returnCode, `${answer.request}: returnCode`);
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
  return keysA.every((key) => Object.hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
