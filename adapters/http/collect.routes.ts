import { Elysia } from "elysia";
import { collectError } from "../../core/errors/index.ts";
import type { CollectMethod } from "../../core/ports/index.ts";
import { WebCollectRequest } from "../collect/web-collect-request.ts";
import type { AppDeps } from "./app-deps.ts";
import { collectAdminRoutes } from "./collect-admin.routes.ts";
import { connectionOf } from "./connection.ts";
import { preflight, setEventHeaders } from "./cors.ts";
import { failWith } from "./error-mapping.ts";
import { answerWithKnownBody } from "./faults-and-journal.ts";
import { requestBodyOf } from "./openapi-parts.ts";

/** DEC-COL-03: the 43-byte 1x1 transparent GIF. A Blob can be the body of any number of answers. */
const transparentGifBytes = new Uint8Array(
  Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64"),
);
export const transparentGif = new Blob([transparentGifBytes], { type: "image/gif" });

/** COL-06, DEC-COL-04: a POST's parameters: svc_account and svc_profile (else in the query string), svc_event, any others. */
const eventBodySchema = {
  type: "object",
  properties: {
    svc_account: { type: "string" },
    svc_profile: { type: "string" },
    svc_event: { type: "string" },
    svc_visitor_id: { type: "string" },
  },
  additionalProperties: true,
} as const;

const refusals = {
  400: { description: "Refused: the reason is in the X-Error header; the body is empty (COL-04)" },
  429: {
    description:
      "More than the account's events per second (DEC-COL-07), the source's share of them, or the source's bytes per second; X-Error and Retry-After",
  },
  503: { description: "The store cannot commit (DEC-COL-08); X-Error and Retry-After" },
};

/**
 * The collection endpoint (COL-*, VID-*, DEC-COL-*): GET answers the pixel, HEAD the pixel's headers without
 * collecting, POST an empty 200, OPTIONS the CORS preflight; another method is 405 (error-mapping.ts).
 * Thin: the use-case (core/collect/collect.use-cases.ts) decides, refusals go through the one error
 * mapping (400/429/503 with X-Error and an empty body).
 */
export function collectRoutes(deps: AppDeps) {
  const collector = deps.collector;

  async function collect(
    request: Request,
    headers: Record<string, string | number>,
    method: CollectMethod,
  ): Promise<void> {
    setEventHeaders(request, headers);
    const outcome = await collector.collect(new WebCollectRequest(request, method, connectionOf(request).address));
    if (!outcome.ok) failWith(outcome.error);
    if (outcome.value.setCookie) headers["set-cookie"] = outcome.value.setCookie;
  }

  return (
    new Elysia({ name: "collect" })
      .get(
        "/event",
        async ({ request, set }) => {
          await collect(request, set.headers, "GET");
          return answerWithKnownBody(
            request,
            new Response(transparentGif, { headers: { "content-type": "image/gif" } }),
            transparentGifBytes,
          );
        },
        {
          detail: {
            tags: ["collect"],
            summary: "Collect an event from query parameters; answers a 1x1 transparent GIF",
            responses: {
              200: {
                description: "The 43-byte GIF (image/gif), Cache-Control: no-store",
                content: { "image/gif": {} },
              },
              ...refusals,
            },
          },
        },
      )
      .head(
        "/event",
        // DEC-COL-03: what a GET would answer, without a body. Nothing is collected and no TAPID is set: a HEAD
        // is a probe (link checkers, proxies), not an event, and it must be safe to repeat (RFC 9110).
        ({ request, set }) => {
          setEventHeaders(request, set.headers);
          return new Response(null, {
            status: 200,
            headers: { "content-type": "image/gif", "content-length": String(transparentGif.size) },
          });
        },
        {
          detail: {
            tags: ["collect"],
            summary: "The pixel's headers without a body; collects nothing",
            responses: { 200: { description: "image/gif, Cache-Control: no-store, no body" } },
          },
        },
      )
      .post(
        "/event",
        async ({ request, set }) => {
          await collect(request, set.headers, "POST");
          return new Response(null, { status: 200 });
        },
        {
          parse: "none",
          detail: {
            tags: ["collect"],
            summary:
              "Collect an event from a JSON object body (application/json or text/plain, gzip allowed) and the query string",
            requestBody: requestBodyOf(
              { "application/json": eventBodySchema, "text/plain": eventBodySchema },
              "The event's parameters as one JSON object (text/plain is what navigator.sendBeacon sends); Content-Encoding gzip is taken. No key may hold a period, at most 64 levels of nesting, at most 1 MiB",
            ),
            responses: { 200: { description: "Stored (or a filtered bot); empty body" }, ...refusals },
          },
        },
      )
      .options(
        "/event",
        ({ request, set }) => {
          set.headers["cache-control"] = "no-store";
          return preflight(request, set.headers, "GET, POST, OPTIONS");
        },
        {
          detail: {
            tags: ["collect"],
            summary: "CORS preflight of POST /event (DEC-COL-12)",
            responses: { 204: { description: "Allowed" } },
          },
        },
      )
      // Any other method (RFC 9110): 405 with the methods /event takes; the routes above keep theirs.
      .all(
        "/event",
        ({ set }) => {
          set.headers.allow = "GET, HEAD, POST, OPTIONS";
          failWith(collectError("methodNotAllowed"));
        },
        { parse: "none", detail: { hide: true } },
      )
      .use(collectAdminRoutes(deps))
  );
}
