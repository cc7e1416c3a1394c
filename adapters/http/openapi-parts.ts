import { type IntegerOptions, Type } from "@sinclair/typebox";
import { type DocumentDecoration, type TSchema, t } from "elysia";

/**
 * Parts of the OpenAPI document that Elysia's cannot derive from a route's schemas. Its document takes a
 * route's `detail` as the operation and puts a requestBody or responses of its own in their place only when
 * the route declares `body` or `response`; from those it knows JSON, and forms only from a parser it runs.
 * So a route that reads its body itself (`parse: "none"`) names it with `requestBodyOf`/`formBodyOf` in
 * `detail.requestBody`, and a route whose answers are not all JSON (a zip, a script, no body at all) names
 * every answer in `detail.responses` with `answersOf`, declaring no `response`.
 */

/**
 * A whole number in an answer: TypeBox's own integer, documented as `integer`. Elysia's `t.Integer` is for what
 * a request sends: it also takes "5" (a form field is text), so the document says "a string or a number", and it
 * compiles a check each time one is made, which cost the start about 15 ms for the seventy of the answers
 * (bench/FINDINGS.md, "Start").
 */
export function AnswerInteger(options?: IntegerOptions) {
  return Type.Integer(options);
}

/** DEC-GEN-01: the body of every management error. */
export const ErrorBody = t.Object(
  { returnCode: AnswerInteger(), message: t.String() },
  { description: "DEC-GEN-01 error body" },
);

/** A body of raw bytes or text (a CSV, a script, a zip) in the document. */
export const binarySchema = { type: "string", format: "binary" } as const;

type Schema = TSchema | { readonly [key: string]: unknown };

type RequestBody = Exclude<NonNullable<DocumentDecoration["requestBody"]>, { readonly $ref: string }>;
type DocumentSchema = NonNullable<RequestBody["content"][string]["schema"]>;

/** A schema as plain JSON: a TypeBox schema without its symbols, as the document holds it. */
function plain(schema: Schema): DocumentSchema {
  return JSON.parse(JSON.stringify(schema)) as DocumentSchema;
}

/** A request body in one or more media types, each with its schema. */
export function requestBodyOf(
  content: Readonly<Record<string, Schema>>,
  description: string,
  required = true,
): RequestBody {
  return {
    description,
    required,
    content: Object.fromEntries(
      Object.entries(content).map(([mediaType, schema]) => [mediaType, { schema: plain(schema) }]),
    ),
  };
}

/** A form body (application/x-www-form-urlencoded) of string fields, each with its description. */
export function formBodyOf(fields: Readonly<Record<string, string>>, description: string): RequestBody {
  const schema = t.Object(
    Object.fromEntries(Object.entries(fields).map(([name, about]) => [name, t.String({ description: about })])),
  );
  return requestBodyOf({ "application/x-www-form-urlencoded": schema }, description);
}

/** An answer of the document: a description and, unless it has no body, its media types and schemas. */
export interface Answer {
  readonly description: string;
  readonly content?: Readonly<Record<string, Schema>>;
}

/** Answers by status; an entry that is a string is an error answer described so (`ErrorBody`, JSON). */
export function answersOf(answers: Readonly<Record<number, Answer | string>>) {
  return Object.fromEntries(
    Object.entries(answers).map(([status, answer]) => {
      const { description, content } =
        typeof answer === "string" ? { description: answer, content: { "application/json": ErrorBody } } : answer;
      return [
        status,
        content === undefined
          ? { description }
          : {
              description,
              content: Object.fromEntries(
                Object.entries(content).map(([type, schema]) => [type, { schema: plain(schema) }]),
              ),
            },
      ];
    }),
  );
}
