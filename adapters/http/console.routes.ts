import { Elysia } from "elysia";
import { type ConsoleAsset, consoleAssets } from "../console/console-assets.ts";

/**
 * The console's pages and files (docs/console.md). They hold no data: every value they show is read from the
 * admin API with the token the user types in, so they are served to anyone, like a static site. Each page
 * answers a Content-Security-Policy that allows scripts and styles from svc-hub only and no inline script,
 * so that a value from outside that reached the page as markup still could not run.
 */
const consolePolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The API reference page: Scalar sets styles from its script (style attributes and style elements), loads its
 * images as data: and blob: URLs, and sends the requests its client makes to svc-hub only (connect-src).
 */
const apiReferencePolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const pageHeaders = {
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "x-frame-options": "DENY",
};

function answer(request: Request, asset: ConsoleAsset, headers: Record<string, string>): Response {
  const common = { etag: asset.etag, "cache-control": "no-cache", ...headers };
  if (request.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, headers: common });
  return new Response(asset.body, { headers: { "content-type": asset.contentType, ...common } });
}

const notFound = () =>
  new Response("Not found\n", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });

export function consoleRoutes() {
  const page = async (request: Request) => {
    const assets = await consoleAssets();
    const path = new URL(request.url).pathname.replace(/\/+$/, "");
    if (path === "/console/api") {
      return answer(request, assets.apiReferencePage, {
        "content-security-policy": apiReferencePolicy,
        ...pageHeaders,
      });
    }
    return answer(request, assets.page, { "content-security-policy": consolePolicy, ...pageHeaders });
  };
  return new Elysia({ name: "console" })
    .get("/", ({ request }) => Response.redirect(new URL("/console/", request.url).pathname, 302), {
      detail: { hide: true },
    })
    .get("/console", ({ request }) => page(request), { detail: { hide: true } })
    .get(
      "/console/assets/:file",
      async ({ request, params }) => {
        const asset = (await consoleAssets()).files.get(params.file);
        return asset ? answer(request, asset, {}) : notFound();
      },
      { detail: { hide: true } },
    )
    .get("/console/*", ({ request }) => page(request), { detail: { hide: true } });
}
