import { splitQueryString } from "./fault-plan.rules.ts";

/**
 * The request journal's views of what it kept (issue 43): secrets redacted wherever they are named (a query
 * parameter, a header, a form field, a JSON member), and a body as text when it is UTF-8, else as base64.
 */

/** A name that says its value is a secret: a query parameter, a header, a form field or a JSON member. */
const secretName = /utk|pass|pwd|secret|token|key|auth|sig|session|cookie|credential/i;
export const redactedValue = "[redacted]";

/** Whether a parameter, header or field of this name is shown as "[redacted]". */
export function isSecretName(name: string): boolean {
  return secretName.test(name);
}

/** The query's parameters, the values of those named like a secret replaced by "[redacted]". */
export function redactQuery(query: string): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const [name, raw] of splitQueryString(query)) {
    const value = isSecretName(name) ? redactedValue : raw;
    const seen = params[name];
    params[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return params;
}

/**
 * A query string or a form body as sent, the value of each parameter named like a secret replaced by
 * "[redacted]"; every other byte kept as it was (its escapes, its order).
 */
export function redactFormText(text: string): string {
  if (!secretName.test(text)) return text;
  return text
    .split("&")
    .map((part) => {
      const equals = part.indexOf("=");
      if (equals < 0) return part;
      const [name] = splitQueryString(part.slice(0, equals))[0] ?? [""];
      return isSecretName(name) ? `${part.slice(0, equals)}=${redactedValue}` : part;
    })
    .join("&");
}

/** Headers as one object of lower-case names (repeated ones joined by ", "), secrets redacted. */
export function redactHeaders(headers: ReadonlyArray<readonly [string, string]>): Record<string, string> {
  const view: Record<string, string> = {};
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    const shown = isSecretName(lower) ? redactedValue : value;
    view[lower] = view[lower] === undefined ? shown : `${view[lower]}, ${shown}`;
  }
  return view;
}

function redactJsonValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJsonValue);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [name, isSecretName(name) ? redactedValue : redactJsonValue(member)]),
  );
}

/** A JSON member named like a secret with a string value, in JSON text that may be cut short. */
const secretMember = /("((?:[^"\\]|\\.)*)"\s*:\s*)"(?:[^"\\]|\\.)*("?)/g;

/**
 * A body's text with its secrets redacted: a form body's fields, and a JSON body's members at any depth,
 * named like a secret. JSON that does not parse (cut by the journal's limit) has its string members named
 * like a secret redacted where they stand; other text is kept as it is.
 */
export function redactBodyText(text: string, contentType: string): string {
  const type = contentType.toLowerCase();
  if (type.includes("x-www-form-urlencoded")) return redactFormText(text);
  const first = text.trimStart()[0];
  if (!type.includes("json") && first !== "{" && first !== "[") return text;
  if (!secretName.test(text)) return text;
  try {
    return JSON.stringify(redactJsonValue(JSON.parse(text)));
  } catch {
    return text.replace(secretMember, (member, head: string, name: string, closing: string) =>
      isSecretName(name) ? `${head}"${redactedValue}${closing}` : member,
    );
  }
}

// WHATWG Encoding and base64, in every runtime core runs on (core's tsconfig has no DOM lib).
declare const TextDecoder: new (
  label?: string,
  options?: { fatal?: boolean },
) => { decode(input: Uint8Array, options?: { stream?: boolean }): string };
declare function btoa(binary: string): string;

/** A body as the journal answers it: its text when it is UTF-8, else its bytes in base64. */
export type JournaledBodyView =
  | { readonly text: string; readonly bytes: number; readonly truncated: boolean }
  | { readonly base64: string; readonly bytes: number; readonly truncated: boolean };

/** The UTF-8 text of `bytes`, or null when they are not UTF-8 (a body cut in a character's middle still is). */
export function utf8TextOf(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return null;
  }
}

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(at, Math.min(at + 0x8000, bytes.length)));
  return btoa(binary);
}

/**
 * The view of a kept body: UTF-8 text, its secrets redacted, unless it is compressed (`Content-Encoding`) or
 * not UTF-8, when it is base64 as kept (nothing in it can be read to redact).
 */
export function viewBody(
  bytes: Uint8Array,
  truncated: boolean,
  headers: ReadonlyArray<readonly [string, string]>,
): JournaledBodyView {
  const headerOf = (wanted: string) => headers.find(([name]) => name.toLowerCase() === wanted)?.[1] ?? "";
  const encoding = headerOf("content-encoding").trim().toLowerCase();
  const text = encoding === "" || encoding === "identity" ? utf8TextOf(bytes) : null;
  if (text === null) return { base64: base64Of(bytes), bytes: bytes.length, truncated };
  return { text: redactBodyText(text, headerOf("content-type")), bytes: bytes.length, truncated };
}
