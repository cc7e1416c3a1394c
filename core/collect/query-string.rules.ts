/**
 * The WHATWG encoding API, which every host of the core provides (Bun, Deno, Node, browsers) though ES2023 does
 * not define it. Declared here with only what the core uses of it, so that the core type-checks without DOM or
 * runtime types (core/tsconfig.json).
 */
declare const TextEncoder: new () => { encode(input: string): Uint8Array };
declare const TextDecoder: new (
  label: string,
  options: { ignoreBOM: boolean },
) => { decode(input: Uint8Array): string };

const utf8Encoder = new TextEncoder();
/** UTF-8 decode without BOM: a leading U+FEFF stays, and a byte that is not UTF-8 becomes U+FFFD. */
const utf8Decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Each byte's value as a hex digit, or -1. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * Percent-decoding as the URL standard does it: on the text's UTF-8 bytes, `%` and two hex digits become that
 * byte and any other `%` stays, then UTF-8 decoding that makes each byte that is not UTF-8 a U+FFFD. Only for
 * text decodeURIComponent refused (a `%` without two hex digits after it, bytes that are not UTF-8).
 */
function percentDecodeLeniently(text: string): string {
  const bytes = utf8Encoder.encode(text);
  const out = new Uint8Array(bytes.length);
  let length = 0;
  for (let at = 0; at < bytes.length; at += 1) {
    const byte = bytes[at] as number;
    if (byte === 37 && at + 2 < bytes.length) {
      const high = hexValue(bytes[at + 1] as number);
      const low = hexValue(bytes[at + 2] as number);
      if (high >= 0 && low >= 0) {
        out[length++] = high * 16 + low;
        at += 2;
        continue;
      }
    }
    out[length++] = byte;
  }
  return utf8Decoder.decode(out.subarray(0, length));
}

/** One name or value of a query string: `+` is a space, then percent-decoding (the form-urlencoded parser's). */
function decodeQueryPart(text: string): string {
  const spaced = text.includes("+") ? text.replaceAll("+", " ") : text;
  if (!spaced.includes("%")) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return percentDecodeLeniently(spaced);
  }
}

/** A request's query string, read in one pass: its pairs, and its length for the byte budget. */
export interface QueryString {
  /** The name/value pairs in order, decoded as URLSearchParams decodes them. */
  readonly pairs: ReadonlyArray<readonly [string, string]>;
  /** The length from the `?` to the URL's end (a GET event's parameters, counted by the byte budget); 0 without a `?`. */
  readonly length: number;
}

/**
 * COL-03: a URL's query string, its name/value pairs in order as URLSearchParams reads them (the URL standard's
 * application/x-www-form-urlencoded parser): pairs split at `&`, empty ones skipped, a name without `=` has the
 * value "", `+` is a space, percent-escapes are decoded as UTF-8 and what is not UTF-8 becomes U+FFFD. None
 * without a `?`; a fragment (`#…`, which a URL made in-process may carry) is not part of them.
 *
 * The collection endpoint's hot path reads every event's parameters here: one pass over the text, and the
 * common case (no `%` or `+`, or escapes of valid UTF-8) never leaves the engine's own string functions.
 */
export function readQueryString(url: string): QueryString {
  const pairs: Array<readonly [string, string]> = [];
  const start = url.indexOf("?");
  if (start < 0) return { pairs, length: 0 };
  const fragment = url.indexOf("#", start);
  const end = fragment < 0 ? url.length : fragment;
  let at = start + 1;
  while (at <= end) {
    let next = url.indexOf("&", at);
    if (next < 0 || next > end) next = end;
    if (next > at) {
      const equals = url.indexOf("=", at);
      pairs.push(
        equals < 0 || equals >= next
          ? [decodeQueryPart(url.slice(at, next)), ""]
          : [decodeQueryPart(url.slice(at, equals)), decodeQueryPart(url.slice(equals + 1, next))],
      );
    }
    at = next + 1;
  }
  return { pairs, length: url.length - start };
}

/** The query string of a URL as received, without its `?` and without a fragment ("" when there is none). */
export function rawQueryOf(url: string): string {
  const start = url.indexOf("?");
  if (start < 0) return "";
  const fragment = url.indexOf("#", start);
  return url.slice(start + 1, fragment < 0 ? url.length : fragment);
}
