import { Elysia } from "elysia";
import { dataLayerScript, validateDataLayerPath } from "../../core/datalayer/index.ts";
import { managementError } from "../../core/errors/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { failWith } from "./error-mapping.ts";
import { answersOf } from "./openapi-parts.ts";

const servedFile = /^(.+)\.(json|js)$/;

const contentTypes = {
  json: "application/json; charset=utf-8",
  js: "text/javascript; charset=utf-8",
} as const;

/** Whether an If-None-Match header names this entity tag (or `*`). */
function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

/** How long a browser may keep the answer to a preflight, in seconds (as the credentialed ones in cors.ts). */
const preflightMaxAge = "600";

/**
 * The answer to a CORS preflight of a served data layer: public, so any origin without credentials (the
 * credentialed helpers of cors.ts are for other routes). The same for every path, published or not.
 */
function publicPreflight(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, HEAD, OPTIONS",
      "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? "If-None-Match",
      "access-control-max-age": preflightMaxAge,
      vary: "Access-Control-Request-Headers",
    },
  });
}

/**
 * DEC-DLE-07: published data layers, without credentials: GET /dle/{account}/{profile}/{dl_id}.json (the
 * JSON as uploaded) and .js (a script assigning it to window.utag.globals.dle.enrichments["<dl_id>"]), with
 * `Access-Control-Allow-Origin: *`. Served only once a change completed, and no more once a delete did.
 *
 * Caching: `public, no-cache` with an ETag instead of the management APIs' no-store, because pages load
 * these on every view: a browser or CDN may keep a copy but must revalidate it each time (a cheap 304), so a
 * newly completed change or delete is seen at once.
 *
 * OPTIONS is the CORS preflight, for a page that reads the JSON with request headers of its own.
 */
export function dleServingRoutes(deps: AppDeps) {
  return new Elysia({ name: "dle-serving", prefix: "/dle" })
    .options("/:account/:profile/:file", ({ request }) => publicPreflight(request), {
      detail: {
        tags: ["hosted data layer (served)"],
        summary: "CORS preflight of a served data layer: any origin, without credentials",
        responses: { 204: { description: "Allowed" } },
      },
    })
    .get(
      "/:account/:profile/:file",
      async ({ params, request, set }) => {
        set.headers["access-control-allow-origin"] = "*";
        const raw = params as Record<string, string | null | undefined>;
        const file = servedFile.exec(raw.file ?? "");
        const key = file ? validateDataLayerPath(raw.account, raw.profile, file[1]) : null;
        if (!file || !key?.ok) failWith(managementError("resourceNotFound"));
        const served = await deps.dataLayers.served(key.value);
        if (!served) failWith(managementError("resourceNotFound"));

        const format = file[2] as keyof typeof contentTypes;
        const etag = `"${format}-${served.seq}-${served.publishedAt}"`;
        // set.headers too, so that the app-wide no-store set on every request cannot win over this.
        set.headers["cache-control"] = "public, no-cache";
        const headers = { "access-control-allow-origin": "*", "cache-control": "public, no-cache", etag };
        if (matchesEtag(request.headers.get("if-none-match"), etag))
          return new Response(null, { status: 304, headers });
        const text = format === "json" ? served.body : dataLayerScript(key.value.dlId, served.body);
        return new Response(text, { status: 200, headers: { ...headers, "content-type": contentTypes[format] } });
      },
      {
        detail: {
          tags: ["hosted data layer (served)"],
          summary: "A published data layer as JSON ({dl_id}.json) or as a script ({dl_id}.js), without credentials",
          responses: answersOf({
            200: {
              description:
                "The data layer as published: {dl_id}.json the object itself, {dl_id}.js a script that assigns it to window.utag.globals.dle.enrichments[dl_id]",
              content: { [contentTypes.json]: { type: "object" }, [contentTypes.js]: { type: "string" } },
            },
            304: { description: "Not modified: If-None-Match named the ETag of what is served; no body" },
            404: "No such data layer published (1404)",
          }),
        },
      },
    );
}
