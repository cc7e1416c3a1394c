/**
 * Second probe, finding 4: text that a store may refuse or change, in every text position of every route,
 * answered the same by every store. On PostgreSQL a NUL (U+0000) in a login's username answered 500 1500 where
 * libSQL answered 401 1401 (docs/decisions.md, "Text that a store cannot keep").
 *
 * svc-hub is built in-process three times, on the in-memory store, on libSQL and on PostgreSQL (a real server,
 * tools/postgres-server.ts), with the demo tenants, and each request goes to all three; they get the same
 * requests in the same order, and nothing runs in the background but when drained. Every operation of
 * /openapi.json, and the undocumented collection, serving and moments routes, gets a sensible request,
 * authenticated where the route needs it, which must reach the store (neither 400 nor 401). Then each of its text
 * positions in turn (path segments, query parameter names and values, form and multipart fields, a file part's
 * name and content, CSV cells, JSON strings and keys, cookies, the headers that are read) takes hostile text:
 * first the sensible value with a NUL and more after it (a store that cut it short would find the sensible
 * one), then fast-check's picks of U+0000, lone surrogates, U+FFFF, combining marks, bidirectional controls,
 * `%00`, long text or any UTF-16 code units. The properties: no answer is a 5xx, and the three answers have the
 * same status, returnCode and X-Error. After each operation the background work is drained (`POST /admin/wait`,
 * the same answer from each store), and at the end no store has logged an error, so what was stored was also
 * processed alike (events into profiles, imports, deletions, publishing).
 *
 * About a minute on a quiet machine. More cases: HOSTILE_TEXT_RUNS=10 (per position; HOSTILE_TEXT_SEED=<n> for
 * other ones).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import fc from "fast-check";
import { loadConfigFile } from "../adapters/config/config.loader.ts";
import { demoConfigPath } from "../adapters/config/demo-config.ts";
import { createArgon2Hasher } from "../adapters/runtime/crypto.ts";
import { createMemoryLogger } from "../adapters/runtime/logger.ts";
import { openService, type Service, type StoreChoice } from "../adapters/server/service.ts";
import type { ServiceConfig } from "../core/config/index.ts";
import { type PostgresServer, startPostgresServer } from "../tools/postgres-server.ts";

const runs = Number(process.env.HOSTILE_TEXT_RUNS ?? 2);
const seed = Number(process.env.HOSTILE_TEXT_SEED ?? 20261201);
const origin = "http://localhost";
const adminToken = "hostile-text-admin-token";
const answerLimitMs = 15_000;

/** Logins hash at a low cost here: the property is about what reaches the stores, not argon2's cost. */
const hasher = createArgon2Hasher({
  concurrency: 2,
  maxWaiting: 1_000,
  maxWaitingPerSource: 1_000,
  cost: { memoryCost: 8, timeCost: 1 },
});

// ---------------------------------------------------------------------------------------------- hostile text

/** CJK characters in no order, so that a long value does not compress (PostgreSQL compresses long index entries). */
function spreadText(length: number): string {
  return Array.from({ length }, (_, index) => String.fromCharCode(0x4e00 + ((index * 7_919) % 20_000))).join("");
}

/**
 * Text a store may refuse (PostgreSQL: U+0000), change (libSQL reads text back cut short at a U+0000; both SQL
 * stores write a lone surrogate as U+FFFD) or fail to index (PostgreSQL: an entry over 2,704 bytes).
 */
const hostileCores = [
  "\u0000",
  "a\u0000b",
  "demo@example.com\u0000",
  "acme\u0000",
  "\u0000acme",
  "\ud800",
  "x\udc00y",
  "\udbff",
  "\u{10ffff}",
  "\uffff",
  "\ufffe",
  "\ufffd",
  "e\u0301",
  "\u0301",
  "\u202e\u0000",
  "\ufeff",
  "\u200d",
  "\u0085",
  "\u007f",
  "😀",
  "%00",
  "%2500",
  "\\u0000",
  spreadText(1_000),
  spreadText(3_000),
  "x".repeat(70_000),
  `${spreadText(1_500)}\u0000`,
] as const;

/**
 * A hostile text: one of the cores, alone or with a number around it (so that a name is not always the same
 * one: five wrong secrets lock a name, and a locked name's keys are checked one a second).
 */
const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...hostileCores) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...hostileCores.filter((core) => core.length < 100)), fc.nat({ max: 1_000_000 }))
      .map(([core, n]) => (n % 2 === 0 ? `${core}${n}` : `u${n}@example.com${core}`)),
  },
  {
    weight: 1,
    // Any UTF-16 code units: lone surrogates, U+0000, U+FFFF among them.
    arbitrary: fc.string({
      unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
      minLength: 1,
      maxLength: 12,
    }),
  },
);

// ---------------------------------------------------------------------------------------------- encodings

/**
 * The UTF-8 bytes of text, a lone surrogate written as the three bytes a careless encoder makes of it (which
 * are not UTF-8): what a client that sends such text puts on the wire, where TextEncoder would send U+FFFD.
 */
function looseUtf8(text: string): Uint8Array {
  const bytes: number[] = [];
  for (let at = 0; at < text.length; at += 1) {
    const unit = text.charCodeAt(at);
    const next = text.charCodeAt(at + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      const point = ((unit - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
      bytes.push(0xf0 | (point >> 18), 0x80 | ((point >> 12) & 63), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63));
      at += 1;
    } else if (unit < 0x80) bytes.push(unit);
    else if (unit < 0x800) bytes.push(0xc0 | (unit >> 6), 0x80 | (unit & 63));
    else bytes.push(0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 63), 0x80 | (unit & 63));
  }
  return new Uint8Array(bytes);
}

/** Percent-encoding of looseUtf8's bytes: every byte but the unreserved ASCII ones. */
function percentEncoded(text: string): string {
  let out = "";
  for (const byte of looseUtf8(text)) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** A header value as sent: as it is when every character can be (Latin-1, no controls), else percent-encoded. */
function headerText(text: string): string {
  return /^[\t\u0020-\u007e\u0080-\u00ff]*$/.test(text) ? text : percentEncoded(text);
}

function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- requests

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A value around which the hostile text goes: `before` + value + `after` (a TAPID entry, a Referer's host). */
interface Framed {
  readonly name: string;
  readonly before: string;
  readonly value: string;
  readonly after: string;
}

type Body =
  | { readonly kind: "json"; readonly value: Json; readonly contentType?: string }
  | { readonly kind: "form"; readonly fields: ReadonlyArray<readonly [string, string]> }
  | {
      readonly kind: "multipart";
      readonly fields: ReadonlyArray<readonly [string, string]>;
      readonly files: ReadonlyArray<readonly [string, string]>;
    }
  | { readonly kind: "csv"; readonly rows: readonly (readonly string[])[] };

/** A request before it is sent: every text in it is a position hostile text can take. */
interface Shape {
  readonly method: string;
  readonly template: string;
  readonly path: Readonly<Record<string, string>>;
  readonly query: ReadonlyArray<readonly [string, string]>;
  readonly cookies: readonly Framed[];
  readonly headers: readonly Framed[];
  readonly body: Body | null;
}

/** Stand-ins for each service's own credentials and revision, put in when the request is built for it. */
const credentials = {
  cookie: "\u0001cookie",
  utk: "\u0001utk",
  bearer: "\u0001bearer",
  revision: "\u0001revision",
} as const;

type Position =
  | { readonly at: "path"; readonly name: string }
  | { readonly at: "query" | "form" | "multipart" | "file"; readonly index: number; readonly part: 0 | 1 }
  | { readonly at: "cookie" | "header"; readonly index: number }
  | { readonly at: "csv"; readonly row: number; readonly column: number }
  | { readonly at: "json"; readonly steps: readonly (string | number)[]; readonly key: boolean };

function describePosition(shape: Shape, position: Position): string {
  switch (position.at) {
    case "path":
      return `path {${position.name}}`;
    case "query":
      return `query ${shape.query[position.index]?.[0]} (${position.part === 0 ? "name" : "value"})`;
    case "form":
    case "multipart": {
      const { fields } = shape.body as Extract<Body, { kind: "form" | "multipart" }>;
      return `${position.at} field ${fields[position.index]?.[0]}`;
    }
    case "file":
      return `multipart file ${position.part === 0 ? "name" : "content"}`;
    case "cookie":
      return `cookie ${shape.cookies[position.index]?.name}`;
    case "header":
      return `header ${shape.headers[position.index]?.name}`;
    case "csv":
      return `CSV row ${position.row} column ${position.column}`;
    case "json":
      return `JSON ${position.key ? "key" : "value"} at /${position.steps.join("/")}`;
  }
}

/** Every text position of a shape. */
function positionsOf(shape: Shape): Position[] {
  const positions: Position[] = Object.keys(shape.path).map((name) => ({ at: "path", name }));
  shape.query.forEach((_, index) => {
    positions.push({ at: "query", index, part: 0 }, { at: "query", index, part: 1 });
  });
  shape.cookies.forEach((_, index) => void positions.push({ at: "cookie", index }));
  shape.headers.forEach((_, index) => void positions.push({ at: "header", index }));
  const body = shape.body;
  if (body?.kind === "form" || body?.kind === "multipart")
    body.fields.forEach((_, index) => void positions.push({ at: body.kind, index, part: 1 }));
  if (body?.kind === "multipart")
    body.files.forEach((_, index) => {
      positions.push({ at: "file", index, part: 0 }, { at: "file", index, part: 1 });
    });
  if (body?.kind === "csv")
    body.rows.forEach((row, rowIndex) => {
      row.forEach((_, column) => void positions.push({ at: "csv", row: rowIndex, column }));
    });
  if (body?.kind === "json") {
    const walk = (value: Json, steps: (string | number)[]) => {
      if (Array.isArray(value)) value.forEach((item, index) => void walk(item, [...steps, index]));
      else if (value !== null && typeof value === "object")
        for (const [key, item] of Object.entries(value)) {
          positions.push({ at: "json", steps: [...steps, key], key: true });
          walk(item, [...steps, key]);
        }
      else positions.push({ at: "json", steps, key: false });
    };
    walk(body.value, []);
  }
  return positions;
}

function replaceAt<T>(items: readonly T[], index: number, replace: (item: T) => T): T[] {
  return items.map((item, at) => (at === index ? replace(item) : item));
}

function jsonWith(value: Json, steps: readonly (string | number)[], key: boolean, text: string): Json {
  const [step, ...rest] = steps;
  if (step === undefined) return text;
  if (Array.isArray(value))
    return value.map((item, index) => (index === step ? jsonWith(item, rest, key, text) : item));
  const object = value as Record<string, Json>;
  const entries = Object.entries(object).map(([name, item]): [string, Json] => {
    if (name !== step) return [name, item];
    if (key && rest.length === 0) return [text, item];
    return [name, jsonWith(item, rest, key, text)];
  });
  return Object.fromEntries(entries);
}

/** The text at `position`. */
function textAt(shape: Shape, position: Position): string {
  switch (position.at) {
    case "path":
      return shape.path[position.name] ?? "";
    case "query":
      return shape.query[position.index]?.[position.part] ?? "";
    case "cookie":
      return shape.cookies[position.index]?.value ?? "";
    case "header":
      return shape.headers[position.index]?.value ?? "";
    case "form":
    case "multipart":
      return (shape.body as Extract<Body, { kind: "form" | "multipart" }>).fields[position.index]?.[1] ?? "";
    case "file":
      return (shape.body as Extract<Body, { kind: "multipart" }>).files[position.index]?.[position.part] ?? "";
    case "csv":
      return (shape.body as Extract<Body, { kind: "csv" }>).rows[position.row]?.[position.column] ?? "";
    case "json": {
      let value: Json = (shape.body as Extract<Body, { kind: "json" }>).value;
      for (const step of position.steps.slice(0, position.key ? -1 : undefined))
        value = (value as Record<string | number, Json>)[step] ?? null;
      return position.key ? String(position.steps.at(-1)) : typeof value === "string" ? value : JSON.stringify(value);
    }
  }
}

/** The shape with `text` at `position`. */
function withText(shape: Shape, position: Position, text: string): Shape {
  const pair = (item: readonly [string, string], part: 0 | 1): [string, string] =>
    part === 0 ? [text, item[1]] : [item[0], text];
  switch (position.at) {
    case "path":
      return { ...shape, path: { ...shape.path, [position.name]: text } };
    case "query":
      return { ...shape, query: replaceAt(shape.query, position.index, (item) => pair(item, position.part)) };
    case "cookie":
      return { ...shape, cookies: replaceAt(shape.cookies, position.index, (item) => ({ ...item, value: text })) };
    case "header":
      return { ...shape, headers: replaceAt(shape.headers, position.index, (item) => ({ ...item, value: text })) };
    case "form":
    case "multipart": {
      const body = shape.body as Extract<Body, { kind: "form" | "multipart" }>;
      return { ...shape, body: { ...body, fields: replaceAt(body.fields, position.index, (item) => pair(item, 1)) } };
    }
    case "file": {
      const body = shape.body as Extract<Body, { kind: "multipart" }>;
      return {
        ...shape,
        body: { ...body, files: replaceAt(body.files, position.index, (item) => pair(item, position.part)) },
      };
    }
    case "csv": {
      const body = shape.body as Extract<Body, { kind: "csv" }>;
      const rows = replaceAt(body.rows, position.row, (row) => replaceAt(row, position.column, () => text));
      return { ...shape, body: { ...body, rows } };
    }
    case "json": {
      const body = shape.body as Extract<Body, { kind: "json" }>;
      return { ...shape, body: { ...body, value: jsonWith(body.value, position.steps, position.key, text) } };
    }
  }
}

interface Principal {
  cookie: string;
  utk: string;
  bearer: string;
  /** The revision published to acme/main when the configuration was applied (its id is the minute it was). */
  revision: string;
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The Request a shape describes for one service, its credentials put in, and `salt` for `{n}`. */
function requestOf(shape: Shape, principal: Principal, salt = 0): Request {
  const own = (text: string) =>
    text
      .replace("{n}", String(salt))
      .replace(credentials.cookie, principal.cookie)
      .replace(credentials.utk, principal.utk)
      .replace(credentials.bearer, principal.bearer)
      .replace(credentials.revision, principal.revision);
  const path = shape.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    percentEncoded(own(shape.path[name] ?? "x")),
  );
  const query = shape.query.map(([name, value]) => `${percentEncoded(name)}=${percentEncoded(own(value))}`).join("&");
  const headers = new Headers();
  for (const header of shape.headers)
    headers.set(header.name, `${header.before}${headerText(own(header.value))}${header.after}`);
  if (shape.cookies.length > 0)
    headers.set(
      "cookie",
      shape.cookies
        .map((cookie) => `${cookie.name}=${cookie.before}${percentEncoded(own(cookie.value))}${cookie.after}`)
        .join("; "),
    );
  let body: Uint8Array<ArrayBuffer> | null = null;
  const encoder = new TextEncoder();
  switch (shape.body?.kind) {
    case "json":
      headers.set("content-type", shape.body.contentType ?? "application/json");
      body = encoder.encode(JSON.stringify(shape.body.value));
      break;
    case "form":
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = encoder.encode(
        shape.body.fields.map(([name, value]) => `${percentEncoded(name)}=${percentEncoded(own(value))}`).join("&"),
      );
      break;
    case "multipart": {
      const boundary = "----hostile-text-boundary";
      headers.set("content-type", `multipart/form-data; boundary=${boundary}`);
      const parts: Uint8Array[] = [];
      for (const [name, value] of shape.body.fields)
        parts.push(
          encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
          looseUtf8(value),
          encoder.encode("\r\n"),
        );
      for (const [fileName, content] of shape.body.files)
        parts.push(
          encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="`),
          looseUtf8(fileName.replace(/["\r\n]/g, "_")),
          encoder.encode('"\r\nContent-Type: application/javascript\r\n\r\n'),
          looseUtf8(content),
          encoder.encode("\r\n"),
        );
      parts.push(encoder.encode(`--${boundary}--\r\n`));
      body = concatBytes(parts);
      break;
    }
    case "csv":
      headers.set("content-type", "text/csv");
      body = concatBytes(shape.body.rows.map((row) => looseUtf8(`${row.map(csvField).join(",")}\n`)));
      break;
  }
  return new Request(`${origin}${path}${query ? `?${query}` : ""}`, { method: shape.method, headers, body });
}

// ---------------------------------------------------------------------------------------------- sensible requests

/** A sensible value of each path and query parameter, by name: one that names what the demo tenants hold. */
const sensibleParameter: Record<string, string> = {
  account: "acme",
  profile: "main",
  dl_id: "homepage",
  engine: "demo-engine",
  visitor: "visitor-1",
  transactionId: "0123456789abcdef0123456789abcdef",
  revisionId: credentials.revision,
  target: "prod",
  fileName: "purchases_1.csv",
  file: "homepage.json",
  // Not demo@example.com, whose session and token the authenticated requests use.
  email: "nogrant@example.com",
  id: "demo-acme",
  seq: "1",
  visitorId: "visitor-1",
  attribute: "5120",
  value: "ann@example.com",
  event: "view",
  traceId: "trace-1",
  from: "2020-01-01T00:00:00Z",
  to: "2100-01-01T00:00:00Z",
  afterSeq: "0",
  beforeSeq: "1000000",
  limit: "10",
  order: "asc",
  verdict: "invalid",
  after: "0",
  replay: "0",
  filePrefix: "purchases",
  startDate: "2020-01-01T00:00Z",
  endDate: "2100-01-01T00:00Z",
  attributeId: "5120",
  attributeValue: "ann@example.com",
  prettyName: "true",
  suppressNotFound: "false",
  ignoreTapid: "false",
  method: "GET",
  // A route template: the journal's path filter matches templates, and refuses one that matches no route.
  path: "/v1/login",
  status: "404",
  "last-event-id": "0",
};

/** The parameters of an event (collection keeps parameters of any name). */
const eventParameters: ReadonlyArray<readonly [string, string]> = [
  ["svc_account", "acme"],
  ["svc_profile", "main"],
  ["svc_event", "view"],
  ["svc_visitor_id", "visitor-1"],
  ["svc_firstparty_visitor_id", "first-1"],
  ["svc_thirdparty_visitor_id", "third-1"],
  ["svc_datasource", "web"],
  ["email_address", "ann@example.com"],
  ["customer_id", "c-1"],
  ["amount", "10"],
  ["purchased_at", "2025-01-01T10:00:00Z"],
  ["page", "home"],
];

const collectionCookies: Framed[] = [
  { name: "TAPID", before: "acme/main>", value: "visitor-1", after: "|" },
  { name: "utag_main", before: "v_id:", value: "first-1", after: "$_sn:1" },
];

/** Bodies of the operations whose sensible body is more than their fields' names say. */
const sensibleJsonBody: Record<string, Json> = {
  "PUT /admin/clock": { now: "2030-01-01T00:00:00Z" },
  "POST /admin/clock/advance": { by: "1s" },
  "POST /admin/wait": { advanceClock: "1d", timeoutMs: 10_000 },
  "POST /admin/reset": {},
  "POST /admin/users": {
    email: "made@example.com",
    password: "a-long-password-1",
    grants: [{ account: "acme", profiles: ["main"] }],
    disabled: false,
  },
  "PUT /admin/users/{email}/password": { password: "a-long-password-1" },
  "PUT /admin/users/{email}/grants": { grants: [{ account: "acme", profiles: "*" }] },
  "PUT /admin/users/{email}/disabled": { disabled: false },
  "POST /admin/users/{email}/api-keys": { id: "made-key" },
  // A fault no request meets: its text reaches the fault plan, its answer no other request.
  "POST /admin/faults": { method: "GET", path: "/v1/nowhere", account: "acme", times: 1, status: 503 },
  "POST /v1/dle/accounts/{account}/profiles/{profile}/datalayers/{dl_id}": {
    page: "home",
    nested: { title: "Home", tags: ["a", "b"] },
  },
  "PUT /v1/dle/accounts/{account}/profiles/{profile}/datalayers/{dl_id}": { page: "home", nested: { title: "Home" } },
  "POST /event": Object.fromEntries(eventParameters.map(([name, value]) => [name, value])),
};

const sensibleFormFields: Record<string, ReadonlyArray<readonly [string, string]>> = {
  // A name of its own for each case: five wrong secrets for one name lock it, and a locked name's keys are
  // checked one a second.
  "POST /v1/login": [
    ["username", "user-{n}@example.com"],
    ["password", "demo-password-1"],
  ],
  "POST /v2/auth": [
    ["username", "user-{n}@example.com"],
    ["key", "demo-key-0001-acme"],
  ],
  "DELETE /v2/visitor/accounts/{account}/profiles/{profile}": [
    ["attributeId", "5120"],
    ["attributeValue", "ann@example.com"],
  ],
};

interface Operation {
  readonly method: string;
  readonly template: string;
  readonly parameters: ReadonlyArray<{ readonly in: string; readonly name: string }>;
  readonly contentTypes: readonly string[];
}

/**
 * The sensible requests of an operation, authenticated as its route needs: two where it takes either of two sets
 * of parameters (a visitor by id, or by attribute and value).
 */
function sensibleShapes(operation: Operation): Shape[] {
  const shape = withExtraKey(sensibleShape(operation));
  if (operation.template !== "/admin/accounts/{account}/profiles/{profile}/visitors") return [shape];
  const without = (name: string) => ({ ...shape, query: shape.query.filter(([each]) => each !== name) });
  return [
    without("visitorId"),
    { ...without("attribute"), query: without("attribute").query.filter(([each]) => each !== "value") },
  ];
}

/** The sensible request of an operation, authenticated as its route needs. */
function sensibleShape(operation: Operation): Shape {
  const key = `${operation.method} ${operation.template}`;
  const path: Record<string, string> = {};
  const query: Array<readonly [string, string]> = [];
  const headers: Framed[] = [];
  let cookies: Framed[] = [];
  for (const parameter of operation.parameters) {
    const value = sensibleParameter[parameter.name] ?? "x";
    if (parameter.in === "path") path[parameter.name] = value;
    if (parameter.in === "query") query.push([parameter.name, value]);
    if (parameter.in === "header") headers.push({ name: parameter.name, before: "", value, after: "" });
  }
  for (const name of operation.template.match(/\{([^}]+)\}/g) ?? []) {
    const bare = name.slice(1, -1);
    path[bare] ??= sensibleParameter[bare] ?? "x";
  }
  const { template } = operation;
  // A parameter no route reads (DEC-GEN-06), so that every route has a name and a value to send text in.
  query.push(["cb", "1"]);
  const collection = template.startsWith("/event");
  if (template.startsWith("/admin") || template === "/metrics")
    headers.push({ name: "authorization", before: "Bearer ", value: adminToken, after: "" });
  else if (template.startsWith("/v2/") && template !== "/v2/auth")
    headers.push({ name: "authorization", before: "Bearer ", value: credentials.bearer, after: "" });
  else if (template.startsWith("/v1/") && template !== "/v1/login") {
    cookies = [{ name: "JSESSIONID", before: "", value: credentials.cookie, after: "" }];
    if (template !== "/v1/logout") query.push(["utk", credentials.utk]);
  }
  if (collection) {
    cookies = collectionCookies;
    headers.push(
      { name: "referer", before: "https://", value: "www.example.com", after: "/page" },
      { name: "user-agent", before: "", value: "Mozilla/5.0 (X11; Linux x86_64)", after: "" },
      { name: "origin", before: "https://", value: "www.example.com", after: "" },
    );
    if (operation.method !== "POST") query.push(...eventParameters);
  }
  if (template.startsWith("/personalization")) {
    cookies = collectionCookies;
    headers.push({ name: "referer", before: "https://", value: "www.example.com", after: "/page" });
  }
  if (template.startsWith("/dle/"))
    headers.push({ name: "origin", before: "https://", value: "example.com", after: "" });

  let body: Body | null = null;
  const form = sensibleFormFields[key];
  if (form) body = { kind: "form", fields: form };
  else if (operation.contentTypes.includes("multipart/form-data") && template.endsWith("/revisions"))
    body = {
      kind: "multipart",
      fields: [
        ["name", "Release"],
        ["comment", "A comment"],
        ["created_by", "demo@example.com"],
        ["targets", "prod,qa"],
      ],
      files: [
        ["utag.js", "window.utag = {};"],
        ["utag.1.js", "window.tag1 = true;"],
      ],
    };
  else if (operation.contentTypes.includes("text/csv"))
    body = {
      kind: "csv",
      rows: [
        ["email", "amount", "purchased_at"],
        ["ann@example.com", "10", "2025-01-01 10:00"],
      ],
    };
  else if (operation.contentTypes.length > 0)
    body = { kind: "json", value: sensibleJsonBody[key] ?? {}, contentType: operation.contentTypes[0] };
  return { method: operation.method, template, path, query, cookies, headers, body };
}

/** Open JSON bodies (a data layer, an event) keep keys of any name: one nested deeper, for its key and its text. */
function withExtraKey(shape: Shape): Shape {
  const body = shape.body;
  if (body?.kind !== "json" || body.value === null || typeof body.value !== "object" || Array.isArray(body.value))
    return shape;
  if (!shape.template.startsWith("/v1/dle/") && shape.template !== "/event") return shape;
  return { ...shape, body: { ...body, value: { ...body.value, extra: { inner: ["text"] } } } };
}

// ---------------------------------------------------------------------------------------------- the services

interface StoreUnderTest {
  readonly kind: StoreChoice["kind"];
  readonly service: Service;
  readonly logger: ReturnType<typeof createMemoryLogger>;
  readonly principal: Principal;
}

/**
 * The demo tenants, with the collection limits out of the way (a 429 depends on the second a request lands in),
 * and the demo user's password and acme key hashed at the low cost: the sessions are made again after every
 * reset, logout and move of the clock.
 */
async function demoConfig(): Promise<ServiceConfig> {
  const loaded = await loadConfigFile(demoConfigPath);
  if (!loaded.ok) throw new Error(loaded.error.format());
  const password = { hash: await hasher.hash("demo-password-1") };
  const key = { hash: await hasher.hash("demo-key-0001-acme") };
  return {
    ...loaded.value,
    users: loaded.value.users.map((user) => (user.email === "demo@example.com" ? { ...user, password } : user)),
    apiKeys: loaded.value.apiKeys.map((apiKey) => (apiKey.id === "demo-acme" ? { ...apiKey, key } : apiKey)),
    limits: {
      ...loaded.value.limits,
      collectEventsPerSecond: 1_000_000,
      collectBytesPerSourcePerSecond: 1024 ** 4,
    },
  };
}

async function openStore(store: StoreChoice, config: ServiceConfig): Promise<StoreUnderTest> {
  const logger = createMemoryLogger("error");
  const opened = await openService({ store, config, logger, env: {}, adminToken, hasher });
  if (!opened.ok) throw new Error(opened.error.format());
  // Not started: background work runs only when drained, at the same point of the sequence on every store.
  return {
    kind: store.kind,
    service: opened.value,
    logger,
    principal: { cookie: "", utk: "", bearer: "", revision: "" },
  };
}

function send(store: StoreUnderTest, request: Request): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    store.service.app.handle(request),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${store.kind}: no answer in ${answerLimitMs} ms`)), answerLimitMs);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** What must be the same from every store. */
interface Answer {
  readonly status: number;
  readonly returnCode: number | null;
  readonly xError: string | null;
  readonly excerpt: string;
}

async function answerOf(response: Response): Promise<Answer> {
  const xError = response.headers.get("x-error");
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    await response.body?.cancel();
    return { status: response.status, returnCode: null, xError, excerpt: "(event stream)" };
  }
  const text = await response.text();
  let returnCode: number | null = null;
  try {
    const parsed = JSON.parse(text) as { returnCode?: unknown };
    if (typeof parsed?.returnCode === "number") returnCode = parsed.returnCode;
  } catch {
    // Not JSON: a GIF, a script, an empty body.
  }
  return { status: response.status, returnCode, xError, excerpt: text.slice(0, 160) };
}

/**
 * The demo user's session and token on a store, made again when a reset, the clock or a logout ended them, and
 * the newest revision of acme/main there.
 */
async function ensurePrincipal(store: StoreUnderTest): Promise<void> {
  const { principal } = store;
  const revisions = await send(
    store,
    new Request(`${origin}/admin/accounts/acme/profiles/main/revisions?limit=1`, {
      headers: { authorization: `Bearer ${adminToken}` },
    }),
  );
  const [newest] = ((await revisions.json()) as { revisions: Array<{ revisionId: string }> }).revisions;
  principal.revision = newest?.revisionId ?? "";
  const check = await send(
    store,
    new Request(`${origin}/v1/dle/accounts/acme/profiles/main/datalayers?utk=${principal.utk}`, {
      headers: { cookie: `JSESSIONID=${principal.cookie}` },
    }),
  );
  const checkToken = await send(
    store,
    new Request(`${origin}/v2/omnichannel/accounts/acme/profiles/main/files/count?filePrefix=purchases`, {
      headers: { authorization: `Bearer ${principal.bearer}` },
    }),
  );
  await check.arrayBuffer();
  await checkToken.arrayBuffer();
  if (check.status === 200 && checkToken.status === 200) return;
  const form = (body: string) => ({
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  const admin = { authorization: `Bearer ${adminToken}` };
  await (
    await send(
      store,
      new Request(`${origin}/admin/users/demo@example.com/lockout`, { method: "DELETE", headers: admin }),
    )
  ).arrayBuffer();
  const login = await send(
    store,
    new Request(`${origin}/v1/login`, form("username=demo%40example.com&password=demo-password-1")),
  );
  expect(login.status).toBe(200);
  principal.utk = ((await login.json()) as { utk: string }).utk;
  principal.cookie = /JSESSIONID=([^;]*)/.exec(login.headers.get("set-cookie") ?? "")?.[1] ?? "";
  const auth = await send(
    store,
    new Request(`${origin}/v2/auth`, form("username=demo%40example.com&key=demo-key-0001-acme")),
  );
  expect(auth.status).toBe(200);
  principal.bearer = ((await auth.json()) as { token: string }).token;
}

/** Every operation of /openapi.json (as the admin sees it), and the routes it does not document. */
async function operationsUnderTest(): Promise<Operation[]> {
  const probe = await openStore({ kind: "memory" }, await demoConfig());
  try {
    const document = (await (
      await probe.service.app.handle(
        new Request(`${origin}/openapi.json`, { headers: { authorization: `Bearer ${adminToken}` } }),
      )
    ).json()) as {
      paths: Record<
        string,
        Record<string, { parameters?: Operation["parameters"]; requestBody?: { content: Record<string, unknown> } }>
      >;
    };
    const operations: Operation[] = Object.entries(document.paths).flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        parameters: operation.parameters ?? [],
        contentTypes: Object.keys(operation.requestBody?.content ?? {}),
      })),
    );
    const documented = new Set(operations.map((operation) => `${operation.method} ${operation.template}`));
    const moments = { in: "query", name: "attributeId" };
    const extra: Operation[] = [
      { method: "GET", template: "/event", parameters: [], contentTypes: [] },
      { method: "POST", template: "/event", parameters: [], contentTypes: ["application/json"] },
      { method: "GET", template: "/dle/{account}/{profile}/{file}", parameters: [], contentTypes: [] },
      {
        method: "GET",
        template: "/personalization/accounts/{account}/profiles/{profile}/engines/{engine}/visitors/{visitor}",
        parameters: [],
        contentTypes: [],
      },
      {
        method: "GET",
        template: "/personalization/accounts/{account}/profiles/{profile}/engines/{engine}",
        parameters: [moments, { in: "query", name: "attributeValue" }],
        contentTypes: [],
      },
    ];
    return [
      ...operations,
      ...extra.filter((operation) => !documented.has(`${operation.method} ${operation.template}`)),
    ];
  } finally {
    await probe.service.close();
  }
}

const operations = await operationsUnderTest();

let postgresServer: PostgresServer | null = null;
const stores: StoreUnderTest[] = [];

beforeAll(async () => {
  postgresServer = await startPostgresServer();
  const config = await demoConfig();
  stores.push(
    await openStore({ kind: "memory" }, config),
    await openStore({ kind: "libsql", url: ":memory:" }, config),
    await openStore({ kind: "postgres", url: await postgresServer.createDatabase("hostile_text") }, config),
  );
}, 120_000);

afterAll(async () => {
  for (const store of stores.splice(0)) await store.service.close();
  await postgresServer?.stop();
});

/** Sends one request to every store in turn; throws when one answered 5xx or the answers differ. */
async function checkSameEverywhere(shape: Shape, what: string, salt = 0): Promise<Answer> {
  // The stores are independent: each gets the requests in the same order, all three at once.
  const answers = await Promise.all(
    stores.map(async (store) => answerOf(await send(store, requestOf(shape, store.principal, salt)))),
  );
  const summary = () =>
    stores
      .map((store, index) => {
        const answer = answers[index] as Answer;
        return `${store.kind}: ${answer.status} ${answer.returnCode ?? ""} ${answer.xError ?? ""} ${answer.excerpt}`;
      })
      .join("\n  ");
  const [first] = answers as [Answer];
  if (answers.some((answer) => answer.status >= 500)) throw new Error(`${what}: a 5xx\n  ${summary()}`);
  if (
    answers.some(
      (answer) =>
        answer.status !== first.status || answer.returnCode !== first.returnCode || answer.xError !== first.xError,
    )
  )
    throw new Error(`${what}: the stores answer differently\n  ${summary()}`);
  return first;
}

describe("second probe, finding 4: hostile text in every position of every route, on every store", () => {
  it("the routes under test are every operation of the OpenAPI document and the undocumented ones", () => {
    expect(operations.length).toBeGreaterThan(60);
  });

  for (const operation of operations) {
    it(`${operation.method} ${operation.template}`, async () => {
      for (const store of stores) await ensurePrincipal(store);
      const statuses = new Map<number, number>();
      for (const shape of sensibleShapes(operation)) {
        // The request as it is reaches the store: it is not refused as malformed, nor unauthenticated (but the
        // made-up names of the login and token requests, which are unknown users).
        const sensible = await checkSameEverywhere(shape, `${operation.method} ${operation.template} as it is`);
        expect(sensible.status).not.toBe(400);
        if (!["/v1/login", "/v2/auth"].includes(operation.template)) expect(sensible.status).not.toBe(401);
        for (const [index, position] of positionsOf(shape).entries()) {
          // First the sensible text with a NUL and more after it: a store that cut it short would find the
          // sensible one.
          const example = `${textAt(shape, position)}\u0000x`;
          await fc.assert(
            fc.asyncProperty(hostileText, fc.nat(), async (text, salt) => {
              const what = `${operation.method} ${operation.template} with ${JSON.stringify(text.slice(0, 60))}${
                text.length > 60 ? `... (${text.length})` : ""
              } as ${describePosition(shape, position)}`;
              const answer = await checkSameEverywhere(withText(shape, position, text), what, salt);
              statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
              for (const store of stores) store.service.deps.testingTools.faults.clear();
            }),
            { numRuns: runs, seed: seed + index, endOnFailure: true, examples: [[example, 0]] },
          );
        }
      }
      // Whatever was stored is processed (events into profiles, imports, deletions, publishing) the same way.
      const drain: Shape = {
        method: "POST",
        template: "/admin/wait",
        path: {},
        query: [],
        cookies: [],
        headers: [{ name: "authorization", before: "Bearer ", value: adminToken, after: "" }],
        body: { kind: "json", value: { advanceClock: "3d", timeoutMs: 30_000 } },
      };
      expect((await checkSameEverywhere(drain, "the drain after the cases")).status).toBe(200);
      if (process.env.HOSTILE_TEXT_VERBOSE)
        console.log(operation.method, operation.template, JSON.stringify(Object.fromEntries(statuses)));
    }, 120_000);
  }

  it("no store logged an error (a stack of a failed request, a background failure)", () => {
    for (const store of stores) {
      const errors = store.logger.lines.filter((line) => line.level === "error");
      expect({ store: store.kind, errors: errors.slice(0, 3) }).toEqual({ store: store.kind, errors: [] });
    }
  });
});
