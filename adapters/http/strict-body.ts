import type { TSchema } from "@sinclair/typebox";
import { managementError } from "../../core/errors/index.ts";
import { failWith } from "./error-mapping.ts";
import { readRequestBody } from "./request-body.ts";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An unknown field of a body: where it is (`grants/0/profile`) and the fields its object takes. */
export interface UnknownField {
  readonly path: string;
  readonly known: readonly string[];
}

/**
 * The first field of a JSON value that its schema does not name, at any depth, or null. Objects with
 * `additionalProperties` or `patternProperties` (records) take any field; a union takes the value when one of
 * its members does.
 */
export function unknownFieldOf(schema: TSchema, value: unknown, path = ""): UnknownField | null {
  if (Array.isArray(schema.anyOf)) {
    let first: UnknownField | null = null;
    for (const member of schema.anyOf as TSchema[]) {
      const found = unknownFieldOf(member, value, path);
      if (found === null) return null;
      first ??= found;
    }
    return first;
  }
  if (schema.type === "object" && isPlainObject(value)) {
    const properties = (schema.properties ?? {}) as Record<string, TSchema>;
    const open = Boolean(schema.additionalProperties) || schema.patternProperties !== undefined;
    for (const [key, field] of Object.entries(value)) {
      const at = path === "" ? key : `${path}/${key}`;
      const fieldSchema = properties[key];
      if (fieldSchema === undefined) {
        if (open) continue;
        return { path: at, known: Object.keys(properties) };
      }
      const inner = unknownFieldOf(fieldSchema, field, at);
      if (inner) return inner;
    }
    return null;
  }
  if (schema.type === "array" && Array.isArray(value) && schema.items) {
    for (const [index, item] of value.entries()) {
      const inner = unknownFieldOf(schema.items as TSchema, item, path === "" ? String(index) : `${path}/${index}`);
      if (inner) return inner;
    }
  }
  return null;
}

function refuseUnknown(found: UnknownField): never {
  const takes = found.known.length === 0 ? "no fields" : `only ${found.known.join(", ")}`;
  // `curl -d '{"by":"1h"}'` without a Content-Type sends the JSON as a form whose one field is named by it.
  const hint = /^\s*[{[]/.test(found.path) ? "; a JSON body needs Content-Type: application/json" : "";
  return failWith(
    managementError("invalidParameter", {
      parameter: found.path,
      problem: `is not a field of this call (it takes ${takes})${hint}`,
    }),
  );
}

/** What a body that is not an object came as, for the refusal: its Content-Type, or that it had none. */
function sentAs(request: Request): string {
  const type = request.headers.get("content-type");
  return type ? `came as ${type.split(";")[0]?.trim()}` : "came without a Content-Type";
}

/**
 * A JSON body schema whose unknown fields are refused (400 1400 naming the field) instead of dropped: Elysia
 * removes the fields a schema does not name before validating, so `{"grant": …}` for `grants` made a user
 * without grants and answered 201. Spread into a route's options: `{ ...strictJsonBody(schema), detail }`.
 */
export function strictJsonBody<T extends TSchema>(schema: T) {
  return {
    body: schema,
    transform({ body, request }: { body: unknown; request: Request }) {
      if (!isPlainObject(body)) {
        failWith(
          managementError("invalidParameter", {
            parameter: "body",
            problem: `must be a JSON object with Content-Type: application/json, or form fields (it ${sentAs(request)})`,
          }),
        );
      }
      const found = unknownFieldOf(schema, body);
      if (found) refuseUnknown(found);
    },
  };
}

/** The most an optional admin body is read: its few fields need far less. */
export const maxOptionalBodyBytes = 16 * 1024;

/**
 * An optional JSON object body, read by the route itself (Elysia checks nothing against a body schema that is
 * optional at its root, so `garbage` or `[1]` went through): none (or only white space) is undefined; a JSON
 * object whose fields the schema names is returned for the route to check its values; anything else is 400 1400.
 */
export async function readOptionalJsonObject(
  request: Request,
  schema: TSchema,
): Promise<Record<string, unknown> | undefined> {
  const refuse = (problem: string): never =>
    failWith(managementError("invalidParameter", { parameter: "body", problem }));
  const bytes = await readRequestBody(request, maxOptionalBodyBytes, "identity");
  if (!bytes.ok) return refuse(`larger than ${maxOptionalBodyBytes} bytes`);
  const text = new TextDecoder().decode(bytes.value);
  if (text.trim() === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refuse("not JSON");
  }
  if (!isPlainObject(body)) return refuse("must be a JSON object");
  const found = unknownFieldOf(schema, body);
  if (found) refuseUnknown(found);
  return body;
}
