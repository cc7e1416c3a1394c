/**
 * DEC-OPS-03: "an invalid file stops the start with a message naming the bad field". The schema's problems
 * with a configuration file, as the core's ConfigProblem (a JSON pointer into the file plus a sentence for a
 * person): TypeBox's own messages ("Expected union value") are rewritten here.
 */
import { Kind, type TSchema } from "@sinclair/typebox";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import type { ConfigProblem } from "../../core/config/index.ts";

/** Every way `value` fails `schema`, worded for people. Empty when the value fits. */
export function describeSchemaProblems(schema: TSchema, value: unknown): ConfigProblem[] {
  // The usual case, a file that fits, costs one check: walking every error is a few times slower (the start).
  if (Value.Check(schema, value)) return [];
  const problems = collect(schema, value, "");
  // A missing property is reported once, not also as "must be a string" for its undefined value.
  const missing = new Set(problems.filter((problem) => problem.message === requiredMessage).map((p) => p.path));
  const seen = new Set<string>();
  return problems.filter((problem) => {
    if (missing.has(problem.path) && problem.message !== requiredMessage) return false;
    const key = `${problem.path}\n${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const requiredMessage = "is required";

function collect(schema: TSchema, value: unknown, basePath: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const error of Value.Errors(schema, value)) {
    const path = basePath + error.path;
    if (error.type === ValueErrorType.Union) problems.push(...describeUnion(error.schema, error.value, path));
    else problems.push({ path: path === "" ? "/" : path, message: describeError(error) });
  }
  return problems;
}

function describeError(error: ValueError): string {
  const schema = error.schema as Record<string, unknown>;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return requiredMessage;
    case ValueErrorType.ObjectAdditionalProperties:
      return describeUnknownProperty(lastSegment(error.path), Object.keys(schema["properties"] ?? {}));
    case ValueErrorType.Object:
      return `must be an object${found(error.value)}`;
    case ValueErrorType.Array:
      return `must be a list${found(error.value)}`;
    case ValueErrorType.String:
      return `must be a string${found(error.value)}`;
    case ValueErrorType.Number:
      return `must be a number${found(error.value)}`;
    case ValueErrorType.Integer:
      return `must be a whole number${found(error.value)}`;
    case ValueErrorType.Boolean:
      return `must be true or false${found(error.value)}`;
    case ValueErrorType.Literal:
      return `must be ${JSON.stringify(schema["const"])}${found(error.value)}`;
    case ValueErrorType.StringMinLength:
      return schema["minLength"] === 1
        ? "must not be empty"
        : `must be at least ${String(schema["minLength"])} characters long`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${String(schema["maxLength"])} characters long`;
    case ValueErrorType.StringPattern:
      return (
        (ownMessage(error.schema) ?? `must match ${String(schema["pattern"])}`) +
        found(error.value, isSensitive(error.schema))
      );
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return schema["minimum"] === 1 && error.schema[Kind] === "Integer"
        ? `must be a positive whole number${found(error.value)}`
        : `must be at least ${String(schema["minimum"])}${found(error.value)}`;
    case ValueErrorType.ArrayMinItems:
      return schema["minItems"] === 1
        ? "must not be an empty list"
        : `must have at least ${String(schema["minItems"])} items`;
    default:
      return error.message;
  }
}

/**
 * A union's own message ("Expected union value") says nothing. When the value plainly means one alternative
 * (the only one of its kind, or the object whose `type` it names), report what is wrong inside that
 * alternative; otherwise list the alternatives.
 */
function describeUnion(schema: TSchema, value: unknown, path: string): ConfigProblem[] {
  const variants = (schema["anyOf"] ?? []) as TSchema[];
  const where = path === "" ? "/" : path;
  if (variants.every(isLiteral)) {
    const allowed = variants.map((variant) => String(variant["const"]));
    const hint = typeof value === "string" ? suggest(value, allowed) : undefined;
    return [
      {
        path: where,
        message: `must be one of: ${allowed.join(", ")}${found(value)}${hint ? `; did you mean "${hint}"?` : ""}`,
      },
    ];
  }
  const expected = ownMessage(schema) ?? `must be ${describeKinds(variants)}`;
  const fallback = [{ path: where, message: `${expected}${found(value, isSensitive(schema))}` }];
  const sameKind = variants.filter((variant) => schemaKind(variant) === valueKind(value));
  if (sameKind.length === 1) {
    const [only] = sameKind;
    return only && !isLiteral(only) ? collect(only, value, path) : fallback;
  }
  if (valueKind(value) !== "object" || sameKind.length === 0) return fallback;
  const record = value as Record<string, unknown>;
  const discriminator = findDiscriminator(sameKind);
  if (discriminator !== undefined) {
    const chosen = sameKind.find(
      (variant) => propertiesOf(variant)[discriminator]?.["const"] === record[discriminator],
    );
    if (chosen) return collect(chosen, value, path);
    const allowed = sameKind.map((variant) => String(propertiesOf(variant)[discriminator]?.["const"]));
    const given = record[discriminator];
    const hint = typeof given === "string" ? suggest(given, allowed) : undefined;
    return [
      {
        path: `${path}/${discriminator}`,
        message:
          given === undefined
            ? `is required (one of: ${allowed.join(", ")})`
            : `must be one of: ${allowed.join(", ")}${found(given)}${hint ? `; did you mean "${hint}"?` : ""}`,
      },
    ];
  }
  // Alternatives told apart by which properties they have ({ hash } or { env }).
  const keys = Object.keys(record);
  const fitting = sameKind.filter((variant) => keys.length > 0 && keys.every((key) => key in propertiesOf(variant)));
  const overlapping = sameKind.filter((variant) => keys.some((key) => key in propertiesOf(variant)));
  const chosen = fitting.length === 1 ? fitting[0] : fitting.length === 0 ? onlyOne(overlapping) : undefined;
  return chosen ? collect(chosen, value, path) : fallback;
}

function onlyOne<T>(items: readonly T[]): T | undefined {
  return items.length === 1 ? items[0] : undefined;
}

/** The wording the schema gives for itself (config.schema.ts), if any. */
function ownMessage(schema: TSchema): string | undefined {
  return typeof schema["errorMessage"] === "string" ? schema["errorMessage"] : undefined;
}

function isSensitive(schema: TSchema): boolean {
  return schema["sensitive"] === true;
}

function isLiteral(schema: TSchema): boolean {
  return schema[Kind] === "Literal";
}

function propertiesOf(schema: TSchema): Record<string, TSchema> {
  return (schema["properties"] ?? {}) as Record<string, TSchema>;
}

function findDiscriminator(variants: readonly TSchema[]): string | undefined {
  const [first] = variants;
  if (!first) return undefined;
  return Object.keys(propertiesOf(first)).find((key) =>
    variants.every((variant) => {
      const property = propertiesOf(variant)[key];
      return property !== undefined && isLiteral(property);
    }),
  );
}

type ValueKind = "object" | "list" | "string" | "number" | "boolean" | "null" | "other";

function valueKind(value: unknown): ValueKind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "list";
  switch (typeof value) {
    case "object":
      return "object";
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    default:
      return "other";
  }
}

function schemaKind(schema: TSchema): ValueKind {
  switch (schema[Kind]) {
    case "Object":
      return "object";
    case "Array":
      return "list";
    case "String":
      return "string";
    case "Number":
    case "Integer":
      return "number";
    case "Boolean":
      return "boolean";
    case "Literal":
      return valueKind(schema["const"]);
    default:
      return "other";
  }
}

const kindNames: Record<ValueKind, string> = {
  object: "an object",
  list: "a list",
  string: "a string",
  number: "a number",
  boolean: "true or false",
  null: "null",
  other: "something else",
};

function describeKinds(variants: readonly TSchema[]): string {
  const describe = (variant: TSchema) =>
    isLiteral(variant) ? JSON.stringify(variant["const"]) : kindNames[schemaKind(variant)];
  const names = [...new Set(variants.map(describe))];
  return names.length <= 1 ? (names[0] ?? "something else") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

/** What was there instead: a short value as written, or the kind of a larger one. */
function found(value: unknown, sensitive = false): string {
  if (value === undefined) return "";
  const kind = valueKind(value);
  const showValue = !sensitive && (kind === "string" || kind === "number" || kind === "boolean");
  if (!showValue) return ` (found ${kindNames[kind]})`;
  const text = JSON.stringify(value);
  return ` (found ${text.length > 60 ? `${text.slice(0, 57)}...` : text})`;
}

function describeUnknownProperty(name: string, allowed: readonly string[]): string {
  const hint = suggest(name, allowed);
  if (hint) return `unknown property "${name}"; did you mean "${hint}"?`;
  return allowed.length === 0
    ? `unknown property "${name}"`
    : `unknown property "${name}"; allowed: ${allowed.join(", ")}`;
}

function lastSegment(pointer: string): string {
  const segment = pointer.slice(pointer.lastIndexOf("/") + 1);
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** The closest allowed word, when it is close enough to be a typo. */
function suggest(word: string, allowed: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of allowed) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { word: candidate, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(best.word.length / 3)) ? best.word : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
