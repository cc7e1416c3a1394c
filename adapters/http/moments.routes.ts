import { Elysia, t } from "elysia";
import { momentsError } from "../../core/errors/index.ts";
import type { MomentsService } from "../../core/moments/index.ts";
import { firstQueryValues } from "../runtime/query-values.ts";
import type { AppDeps } from "./app-deps.ts";
import { preflight, setCredentialedCors } from "./cors.ts";
import { failWith } from "./error-mapping.ts";
import { answerWithKnownBody } from "./faults-and-journal.ts";
import { AnswerInteger } from "./openapi-parts.ts";

const MessageBody = t.Object({ message: t.String() });
const VisitorData = t.Object(
  {
    audiences: t.Array(t.String()),
    badges: t.Array(t.String()),
    metrics: t.Record(t.String(), t.Number()),
    properties: t.Record(t.String(), t.String()),
    flags: t.Record(t.String(), t.Boolean()),
    dates: t.Record(t.String(), AnswerInteger({ description: "epoch milliseconds" })),
  },
  { description: "MOM-03: keys are names or ids as the engine says; only what the engine selects; PII never" },
);
const Query = t.Object({
  suppressNotFound: t.Optional(t.String({ description: "true: a visitor not found is 200 with an empty body" })),
  ignoreTapid: t.Optional(
    t.String({ description: "true: use the path identifier even when a TAPID cookie names a visitor" }),
  ),
  attributeId: t.Optional(t.String()),
  attributeValue: t.Optional(t.String()),
});
/** Documented rather than declared: a suppressed "not found" is a 200 with an empty body, outside the schema. */
const responses = {
  200: {
    description: "The visitor data; or, with suppressNotFound=true and no such visitor, an empty body",
    content: { "application/json": { schema: VisitorData } },
  },
  400: { description: "Bad parameters (MOM-12)", content: { "application/json": { schema: MessageBody } } },
  403: {
    description: "Disabled engine or referer not allowed (MOM-06, MOM-08)",
    content: { "application/json": { schema: MessageBody } },
  },
  404: {
    description: "Visitor not found (MOM-09), or unknown account, profile or engine",
    content: { "application/json": { schema: MessageBody } },
  },
};

const utf8 = new TextEncoder();
const noBytes = new Uint8Array(0);
/** The media type Elysia gives an answered object, kept for the visitor data made into JSON text here. */
const jsonType = "application/json;charset=utf-8";

/** The path's names; Elysia gives null for a segment it cannot percent-decode (`%FF`), which names nothing. */
function namesOf(params: { account: string; profile: string; engine: string }) {
  const decoded = (segment: string) => (segment as string | null) ?? null;
  return { account: decoded(params.account), profile: decoded(params.profile), engineId: decoded(params.engine) };
}

/** The lookup's parameters, each with its first value. */
function firstValuesOf(request: Request) {
  const first = firstQueryValues(request);
  return {
    suppressNotFound: first("suppressNotFound"),
    ignoreTapid: first("ignoreTapid"),
    attributeId: first("attributeId"),
    attributeValue: first("attributeValue"),
  };
}

/**
 * The visitor-data (moments) API: by anonymous visitor ID (MOM-01) or by visitor ID attribute (MOM-02).
 * Referer is checked against the engine's allow list; Origin gets CORS with credentials (DEC-MOM-04).
 */
export function momentsRoutes(deps: AppDeps) {
  const moments = deps.moments;
  const base = "/personalization/accounts/:account/profiles/:profile/engines/:engine";

  async function answer(
    request: Request,
    headers: Record<string, string | number>,
    query: Parameters<MomentsService["lookup"]>[0],
  ) {
    setCredentialedCors(request, headers);
    const found = await moments.lookup(query);
    if (!found.ok) failWith(found.error);
    // MOM-09: a visitor not found, suppressed, is an empty 200.
    if (found.value === null) return answerWithKnownBody(request, new Response(null, { status: 200 }), noBytes);
    // The JSON made here once, and its bytes handed to the request journal, which would otherwise read a clone of
    // each answer: the lookups are the hottest reads (bench/FINDINGS.md, eighteenth round).
    const bytes = utf8.encode(JSON.stringify(found.value));
    return answerWithKnownBody(request, new Response(bytes, { headers: { "content-type": jsonType } }), bytes);
  }

  return (
    new Elysia({ name: "moments" })
      .get(
        `${base}/visitors/:visitor`,
        ({ request, params, set }) => {
          const query = firstValuesOf(request);
          return answer(request, set.headers, {
            ...namesOf(params),
            visitorId: (params.visitor as string | null) ?? null,
            suppressNotFound: query.suppressNotFound,
            ignoreTapid: query.ignoreTapid,
            referer: request.headers.get("referer"),
            cookieHeader: request.headers.get("cookie"),
          });
        },
        {
          query: Query,
          detail: {
            tags: ["visitor data (moments)"],
            summary: "The visitor data of an anonymous visitor ID (headers Referer and Origin)",
            responses,
          },
        },
      )
      .get(
        base,
        ({ request, params, set }) => {
          const query = firstValuesOf(request);
          return answer(request, set.headers, {
            ...namesOf(params),
            attributeId: query.attributeId,
            attributeValue: query.attributeValue,
            suppressNotFound: query.suppressNotFound,
            referer: request.headers.get("referer"),
            cookieHeader: request.headers.get("cookie"),
          });
        },
        {
          query: Query,
          detail: {
            tags: ["visitor data (moments)"],
            summary: "The visitor data of a known visitor, by visitor ID attribute (attributeId, attributeValue)",
            responses,
          },
        },
      )
      .options(`${base}/visitors/:visitor`, ({ request, set }) => preflight(request, set.headers, lookupMethods), {
        detail: { hide: true },
      })
      .options(base, ({ request, set }) => preflight(request, set.headers, lookupMethods), { detail: { hide: true } })
      // MOM-12: a lookup without its visitor identifier is a bad request, not an unknown engine.
      .get(
        `${base}/visitors/`,
        ({ request, set }) => {
          setCredentialedCors(request, set.headers);
          failWith(momentsError("badRequest", { problem: "the visitor identifier is empty" }));
        },
        { detail: { hide: true } },
      )
      // Any other method (RFC 9110): 405 with the methods the lookups take; the routes above keep theirs.
      .all(`${base}/visitors/:visitor`, ({ request, set }) => notAllowed(request, set.headers), {
        parse: "none",
        detail: { hide: true },
      })
      .all(base, ({ request, set }) => notAllowed(request, set.headers), { parse: "none", detail: { hide: true } })
  );
}

/** The methods a lookup path takes: a 405's `Allow` and a preflight's allowed methods name the same ones. */
const lookupMethods = "GET, HEAD, OPTIONS";

function notAllowed(request: Request, headers: Record<string, string | number>): never {
  setCredentialedCors(request, headers);
  headers.allow = lookupMethods;
  failWith(momentsError("methodNotAllowed"));
}
