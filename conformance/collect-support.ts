/**
 * Helpers of the collection and identity scenarios. Black-box: HTTP only. The TAPID reading here is the
 * suite's own (from DEC-COL-10), independent of any implementation's code, so it can judge one.
 */
import type { HttpAnswer, RequestOptions } from "../harness/client.ts";
import {
  about,
  expectEqual,
  expectHeader,
  expectStatus,
  expectTrue,
  fail,
  isPlainObject,
  jsonObject,
} from "../harness/expect.ts";
import type { ScenarioContext } from "../harness/scenario.ts";
import { advanceClock } from "./admin-support.ts";

/** An event as the event log (capability event-log, GET /admin/events) shows it. */
export interface StoredEventView {
  readonly seq: number;
  readonly account: string;
  readonly profile: string;
  readonly visitorId: string;
  readonly visitorIdSource: string;
  readonly thirdPartyVisitorId: string | null;
  readonly firstPartyVisitorId: string | null;
  readonly event: string | null;
  readonly datasource: string | null;
  readonly traceId: string | null;
  readonly receivedAt: string;
  readonly data: Record<string, unknown>;
}

/**
 * Stored events through the event log's GET /admin/events (not part of the specified admin API: the
 * scenario declares needs: ["event-log"]), with the answer they came in. The body must be
 * `{events: [...]}` with a `data` object in each event; anything else fails, showing the body.
 */
export async function queryEvents(
  ctx: ScenarioContext,
  query: Record<string, string | number>,
): Promise<{ events: StoredEventView[]; answer: HttpAnswer }> {
  const answer = await ctx.base.get("/admin/events", { headers: ctx.capabilityHeaders("event-log"), query });
  expectStatus(answer, 200);
  const events = jsonObject(answer).events;
  expectTrue(
    Array.isArray(events) && events.every((event) => isPlainObject(event) && isPlainObject(event.data)),
    "expected {events: [{..., data: {...}}]}",
    answer,
  );
  return { events: events as StoredEventView[], answer };
}

/** The events stored with this trace id. */
export async function eventsWithTrace(ctx: ScenarioContext, traceId: string): Promise<StoredEventView[]> {
  return (await queryEvents(ctx, { traceId, limit: 1000 })).events;
}

/** The one event stored with this trace id. */
export async function storedEvent(ctx: ScenarioContext, traceId: string): Promise<StoredEventView> {
  const { events, answer } = await queryEvents(ctx, { traceId, limit: 1000 });
  if (events.length !== 1)
    fail(about(answer, `expected one stored event with svc_trace_id ${traceId}, found ${events.length}`));
  return events[0] as StoredEventView;
}

export async function expectNotStored(ctx: ScenarioContext, traceId: string): Promise<void> {
  const { events, answer } = await queryEvents(ctx, { traceId, limit: 1000 });
  expectEqual(events.length, 0, `events stored with svc_trace_id ${traceId}`, answer);
}

/**
 * Lets the rate window of one second pass: on the test clock when the target has it, else in real
 * time. Scenarios send events quickly one after another, so a valid event can meet the limit of 100 per
 * second that the suite itself filled (COL-15); that is the suite's load, not the scenario's subject.
 */
export async function letRateWindowPass(ctx: ScenarioContext): Promise<void> {
  if (ctx.hasClock) await advanceClock(ctx, "1s");
  else await new Promise((resolve) => setTimeout(resolve, 1100));
}

/** Sends one request to the collection endpoint; a 429 of the suite's own load is waited out and retried. */
export async function collect(
  ctx: ScenarioContext,
  method: "GET" | "POST",
  path: string,
  options: RequestOptions = {},
): Promise<HttpAnswer> {
  for (let attempt = 0; ; attempt += 1) {
    const answer = await ctx.collect.request(method, path, options);
    if (answer.status !== 429 || attempt === 3) return answer;
    await letRateWindowPass(ctx);
  }
}

export const collectGet = (ctx: ScenarioContext, query: RequestOptions["query"], headers?: Record<string, string>) =>
  collect(ctx, "GET", "/event", { query, headers });

export const collectPost = (ctx: ScenarioContext, json: unknown, options: Omit<RequestOptions, "json"> = {}) =>
  collect(ctx, "POST", "/event", { ...options, json });

/** COL-04: a refusal is the status, an empty body and an X-Error header (with this text, when given). */
export function expectRefusal(answer: HttpAnswer, status: number, xError?: string | RegExp): string {
  expectStatus(answer, status);
  expectTrue(answer.bytes.byteLength === 0, "the body of a refusal must be empty", answer);
  return expectHeader(answer, "x-error", xError ?? /\S/);
}

export const missingAccountOrProfile = "Missing required svc_account or svc_profile param value";
export const unknownAccountOrProfile = "Unknown svc_account or svc_profile param value";

/** DEC-COL-03: the 43-byte 1x1 GIF, transparent (a Graphic Control Extension with the transparency flag). */
export function expectTransparentPixel(answer: HttpAnswer): void {
  expectStatus(answer, 200);
  expectHeader(answer, "content-type", /^image\/gif\b/);
  const bytes = answer.bytes;
  expectEqual(bytes.byteLength, 43, "size of the GIF in bytes", answer);
  expectEqual(new TextDecoder().decode(bytes.subarray(0, 6)), "GIF89a", "GIF signature", answer);
  expectEqual([bytes[6]! | (bytes[7]! << 8), bytes[8]! | (bytes[9]! << 8)], [1, 1], "width and height", answer);
  const extension = bytes.findIndex((byte, index) => byte === 0x21 && bytes[index + 1] === 0xf9);
  expectTrue(
    extension > 0 && ((bytes[extension + 3] ?? 0) & 1) === 1,
    "the GIF has no Graphic Control Extension marking a transparent colour",
    answer,
  );
  expectEqual(bytes.at(-1), 0x3b, "GIF trailer", answer);
}

export interface SetCookie {
  /** The whole Set-Cookie header, for messages. */
  readonly header: string;
  readonly value: string;
  readonly attributes: ReadonlyMap<string, string>;
}

/** The TAPID Set-Cookie of an answer, or null when the answer sets none. */
export function tapidSetCookie(answer: HttpAnswer): SetCookie | null {
  const header = answer.setCookies.find((cookie) => cookie.startsWith("TAPID="));
  if (header === undefined) return null;
  const [pair, ...attributes] = header.split(";");
  return {
    header,
    value: (pair as string).slice("TAPID=".length),
    attributes: new Map(
      attributes.map((attribute) => {
        const [name, ...rest] = attribute.trim().split("=");
        return [(name as string).toLowerCase(), rest.join("=")] as [string, string];
      }),
    ),
  };
}

export interface TapidEntryView {
  readonly key: string;
  readonly id: string;
}

/** DEC-COL-10: `acct/prof>id|...`, each ID percent-decoded. */
export function readTapid(value: string): TapidEntryView[] {
  return value
    .split("|")
    .filter((piece) => piece !== "")
    .map((piece) => {
      const arrow = piece.indexOf(">");
      return { key: piece.slice(0, arrow), id: decodeURIComponent(piece.slice(arrow + 1)) };
    });
}

/** DEC-COL-10: a TAPID value for a request's Cookie header; IDs outside the unreserved set are percent-encoded. */
export function writeTapid(entries: readonly TapidEntryView[]): string {
  return entries
    .map((entry) => `${entry.key}>${/^[\w.~-]+$/.test(entry.id) ? entry.id : encodeURIComponent(entry.id)}|`)
    .join("");
}

/** DEC-COL-10: the attributes of a TAPID that is written. */
export function expectTapidAttributes(cookie: SetCookie, maxAge: string): void {
  const of = `of Set-Cookie: ${cookie.header}`;
  expectEqual(cookie.attributes.get("path"), "/", `TAPID Path ${of}`);
  expectEqual(cookie.attributes.get("max-age"), maxAge, `TAPID Max-Age ${of}`);
  for (const flag of ["httponly", "secure"])
    expectTrue(cookie.attributes.has(flag), `TAPID must carry ${flag}; Set-Cookie: ${cookie.header}`);
  expectEqual(cookie.attributes.get("samesite")?.toLowerCase(), "none", `TAPID SameSite ${of}`);
}
