import {
  type CapturedBody,
  type Fault,
  type FaultPlan,
  faultTrickleChunkBytes,
  type RequestJournal,
  requestJournalBodyBytes,
} from "../../core/testing-tools/index.ts";
import { rawPathOf } from "./error-mapping.ts";
import { methodLabelOf } from "./route-template.ts";

/** The faults and the request journal of this node (issue 33), made by the composition root. */
export interface TestingTools {
  readonly faults: FaultPlan;
  readonly requestJournal: RequestJournal;
}

/** The requests whose body the journal must not keep (withholdBodyFromJournal). */
const bodiesWithheld = new WeakSet<Request>();

/**
 * DEC-PRV-05: the journal keeps this request without its body. A privacy deletion's own request holds the value
 * it deletes; the journal forgets every request holding that value while the deletion is asked for, and this
 * one is recorded only once it is answered.
 */
export function withholdBodyFromJournal(request: Request): void {
  bodiesWithheld.add(request);
}

/** The bodies of answers made of bytes known beforehand, by their request (answerWithKnownBody). */
const knownBodies = new WeakMap<Request, Uint8Array>();

/**
 * `response`, the answer to `request`, whose body is `bytes`: the journal keeps them as they are instead of
 * reading a clone of the answer (the collection endpoint's pixel, the hottest answer, costs no copy). Keyed by
 * the request: Elysia answers with a Response of its own when the route set headers.
 */
export function answerWithKnownBody(request: Request, response: Response, bytes: Uint8Array): Response {
  knownBodies.set(request, bytes);
  return response;
}

/** The header an answer made by a fault carries: the fault's id. */
export const faultHeader = "x-svc-hub-fault";

/**
 * The interface routes: what faults answer and the journal records. Not the admin API (a test's own tools
 * use it, so it is never faulted), the console, the health checks or the OpenAPI document.
 */
function isInterfacePath(path: string): boolean {
  return !(
    path === "/admin" ||
    path.startsWith("/admin/") ||
    path === "/console" ||
    path.startsWith("/console/") ||
    path === "/healthz" ||
    path === "/readyz" ||
    path.startsWith("/openapi")
  );
}

/** The templates of the interface routes among `routes`: those a request journal entry can name. */
export function interfaceRouteTemplates(routes: ReadonlyArray<{ readonly path: string }>): string[] {
  return [...new Set(routes.map((route) => route.path).filter(isInterfacePath))];
}

/**
 * Puts the faults and the request journal in front of `handle` (issue 33). A fault's delay is waited outside
 * `handle`, so that a delayed request does not hold the request gate (a reset would wait for it). A drop is an
 * answer whose body fails before its first byte: Bun then closes the connection, and the client sees a
 * network error (ECONNRESET), not a status. `routeOf` names the route a request matched (null: none), once
 * it is answered. The journal keeps each request whole (issue 43): its headers, and the first bytes of its body
 * read from a clone as the route reads the original, and the same of its answer; nothing is cloned when the
 * journal is off.
 */
export function withFaultsAndJournal(
  handle: (request: Request) => Promise<Response>,
  tools: TestingTools,
  answerHeaders: Readonly<Record<string, string>>,
  routeOf: (request: Request) => string | null,
): (request: Request) => Promise<Response> {
  const { faults, requestJournal } = tools;
  return async (request) => {
    const url = request.url;
    const path = rawPathOf(url);
    if (!isInterfacePath(path)) return handle(request);
    const atMs = Date.now();
    const started = performance.now();
    const query = queryOf(url);
    const fault = faults.size === 0 ? null : await takeFault(faults, request, path, query);
    const journaled = requestJournal.enabled;
    const headers = journaled ? [...request.headers] : [];
    const body = journaled ? captureRequestBody(request) : null;
    const record = async (status: number | null, response: Response | null) => {
      if (!journaled) return;
      const durationMs = elapsedSince(started);
      const [requestBody, answerBody] = await Promise.all([body, response && captureResponseBody(request, response)]);
      requestJournal.record({
        method: methodLabelOf(request.method),
        path,
        query,
        route: routeOf(request),
        atMs,
        status,
        durationMs,
        fault: fault?.id ?? null,
        headers,
        body: bodiesWithheld.has(request) ? null : requestBody,
        response: response && { headers: [...response.headers], body: answerBody },
      });
    };
    try {
      if (fault !== null && fault.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      if (fault?.drop) {
        await record(null, null);
        return droppedConnection();
      }
      const response =
        fault?.status != null ? faultAnswer(fault, request.method, answerHeaders) : await handle(request);
      // The journal keeps the answer as made; a malformed or trickled one is spoiled on its way out only.
      await record(response.status, response);
      return fault === null ? response : await spoiledAnswer(response, fault);
    } catch (error) {
      await record(500, null);
      throw error;
    }
  };
}

/**
 * The first requestJournalBodyBytes of a request's body, read from a clone while the route reads the original
 * (a body the route never reads is read here all the same, up to the limit); null when it has none.
 */
function captureRequestBody(request: Request): Promise<CapturedBody | null> {
  if (request.method === "GET" || request.method === "HEAD" || request.headers.get("content-length") === "0")
    return Promise.resolve(null);
  return readCapped(request.clone().body);
}

/**
 * The first requestJournalBodyBytes of an answer's body, from a clone; null when it has none, or when it is an
 * event stream (read, it would keep the request from ever being journaled).
 */
function captureResponseBody(request: Request, response: Response): Promise<CapturedBody | null> {
  const known = knownBodies.get(request);
  if (known !== undefined) return Promise.resolve(known.byteLength === 0 ? null : { bytes: known, truncated: false });
  if ((response.headers.get("content-type") ?? "").startsWith("text/event-stream")) return Promise.resolve(null);
  return readCapped(response.clone().body);
}

/** Reads `stream` until it ends or has given more than the limit, then lets it go; null when it is empty. */
async function readCapped(stream: ReadableStream<Uint8Array> | null): Promise<CapturedBody | null> {
  if (stream === null) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size > requestJournalBodyBytes) {
        await reader.cancel();
        break;
      }
    }
  } catch {
    // A body that failed (a client gone) is kept as far as it came.
  }
  if (size === 0) return null;
  const bytes = new Uint8Array(Math.min(size, requestJournalBodyBytes));
  let offset = 0;
  for (const chunk of chunks) {
    if (offset >= bytes.length) break;
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return { bytes, truncated: size > requestJournalBodyBytes };
}

function queryOf(url: string): string {
  const question = url.indexOf("?");
  if (question < 0) return "";
  const hash = url.indexOf("#", question);
  return url.slice(question + 1, hash < 0 ? undefined : hash);
}

function elapsedSince(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

/** The answer a fault with a status makes: its body (an object as JSON, a string as text) and headers. */
function faultAnswer(fault: Fault, method: string, answerHeaders: Readonly<Record<string, string>>): Response {
  const json = fault.body !== null && typeof fault.body === "object";
  const text = fault.body === null ? null : json ? JSON.stringify(fault.body) : String(fault.body);
  const headers: Record<string, string> = { ...answerHeaders, [faultHeader]: fault.id };
  if (text !== null) headers["content-type"] = json ? "application/json" : "text/plain; charset=utf-8";
  Object.assign(headers, fault.headers);
  // A status that has no body by definition (204, 205, 304) or a HEAD request answers none.
  const bodiless = method === "HEAD" || [204, 205, 304].includes(fault.status ?? 0);
  return new Response(bodiless ? null : text, { status: fault.status ?? 500, headers });
}

/**
 * An answer whose body errors at once: the server closes the connection without a status line. Errored
 * without a reason: Bun prints a reason (with its stack) on stderr for every drop, the journal says it already.
 */
function droppedConnection(): Response {
  return new Response(
    new ReadableStream({
      start(controller) {
        controller.error();
      },
    }),
  );
}

/** The most of a request's body a fault matching on the body reads (issue 43); a longer one matches no such fault. */
const maxMatchedBodyBytes = 1024 * 1024;
const bodiedMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The fault that answers a request (issue 43: also by its headers and body). The body is read, from a copy
 * the route still reads whole, only while a fault matches on bodies.
 */
async function takeFault(faults: FaultPlan, request: Request, path: string, query: string): Promise<Fault | null> {
  let body: string | null = null;
  if (faults.readsBodies && bodiedMethods.has(request.method) && request.body !== null) {
    const length = Number(request.headers.get("content-length") ?? "0");
    if (length <= maxMatchedBodyBytes) {
      const text = await request.clone().text();
      body = text.length <= maxMatchedBodyBytes ? text : null;
    }
  }
  return faults.take(request.method, path, query, { header: (name) => request.headers.get(name), body });
}

/**
 * A fault's answer spoiled as it asks (issue 43), its own or svc-hub's: a wrong Content-Type, invalid JSON, a
 * body cut in half and its connection closed (the client has the status and headers, then a network error),
 * a body trickled at `trickleBytesPerSecond` in chunks of a tenth of a second's worth. Carries the fault's id.
 */
async function spoiledAnswer(response: Response, fault: Fault): Promise<Response> {
  const { malformed, trickleBytesPerSecond: rate } = fault;
  if (malformed === null && rate === null) return response;
  const headers = new Headers(response.headers);
  headers.set(faultHeader, fault.id);
  headers.delete("content-length");
  let bytes: Uint8Array<ArrayBuffer> = new Uint8Array(await response.arrayBuffer());
  if (malformed === "wrong-content-type") headers.set("content-type", wrongContentTypeOf(headers.get("content-type")));
  if (malformed === "invalid-json") {
    bytes = invalidJsonOf(bytes);
    headers.set("content-type", "application/json");
  }
  const init = { status: response.status, statusText: response.statusText, headers };
  const cut = malformed === "cut-body";
  if (!cut && rate === null) return new Response(bytes, init);
  const sent = cut ? bytes.subarray(0, Math.floor(bytes.length / 2)) : bytes;
  const chunkBytes = rate === null ? Math.max(1, sent.length) : faultTrickleChunkBytes(rate);
  let offset = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (offset >= sent.length) {
          if (!cut) {
            controller.close();
            return;
          }
          // Errored without a reason, as a drop: Bun closes the connection mid-body and prints nothing. Not in
          // the turn the last bytes went to the stream: the status and those bytes are written out first
          // (errored at once, Bun dropped the connection before the status line).
          await realSleep(10);
          controller.error();
          return;
        }
        if (offset > 0 && rate !== null) await realSleep((chunkBytes * 1000) / rate);
        controller.enqueue(sent.slice(offset, offset + chunkBytes));
        offset += chunkBytes;
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, init);
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** JSON becomes text/html, anything else (or nothing) application/json. */
function wrongContentTypeOf(contentType: string | null): string {
  return contentType !== null && /[/+]json\b/i.test(contentType) ? "text/html; charset=utf-8" : "application/json";
}

/** The first half of a body's text, made sure no JSON parser takes it. */
function invalidJsonOf(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const text = new TextDecoder().decode(bytes);
  let cut = text.slice(0, Math.floor(text.length / 2));
  if (cut.trim() === "") cut = "{";
  try {
    JSON.parse(cut);
    cut += "}";
  } catch {
    // Not JSON already.
  }
  return new TextEncoder().encode(cut);
}
