import { Elysia } from "elysia";
import { type ConsoleAsset, type ContentEncoding, consoleAssets } from "../console/console-assets.ts";

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
 * The API reference page: RapiDoc sets styles from its script (style attributes and style elements) and draws
 * some images as data: URLs; the page's one request, /openapi.json, goes to svc-hub (connect-src).
 */
const apiReferencePolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const pageHeaders = {
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "x-frame-options": "DENY",
};

/** An asset at the address its page names (`?v=` the current version) never changes: a browser keeps it a year. */
const immutable = "public, max-age=31536000, immutable";

/** The encoding to send: brotli, else gzip, among those the browser accepts (a q of 0 refuses one) and the asset has. */
function chooseEncoding(request: Request, asset: ConsoleAsset): ContentEncoding | null {
  const accepted = new Set<string>();
  for (const part of (request.headers.get("accept-encoding") ?? "").split(",")) {
    const [name = "", ...parameters] = part.split(";").map((piece) => piece.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith("q="));
    if (name !== "" && (q === undefined || Number(q.slice(2)) > 0)) accepted.add(name);
  }
  for (const encoding of ["br", "gzip"] as const) {
    if (asset.encoded.has(encoding) && (accepted.has(encoding) || accepted.has("*"))) return encoding;
  }
  return null;
}

function answer(
  request: Request,
  asset: ConsoleAsset,
  headers: Record<string, string>,
  cacheControl = "no-cache",
): Response {
  const encoding = chooseEncoding(request, asset);
  // Each encoding is another representation, so it has its own (strong) ETag.
  const etag = encoding === null ? asset.etag : `${asset.etag.slice(0, -1)}-${encoding}"`;
  const common = { etag, "cache-control": cacheControl, vary: "accept-encoding", ...headers };
  const sent = (request.headers.get("if-none-match") ?? "").split(",").map((tag) => tag.trim());
  if (sent.includes(etag)) return new Response(null, { status: 304, headers: common });
  const body = encoding === null ? asset.body : (asset.encoded.get(encoding) ?? asset.body);
  const encodingHeader: Record<string, string> = encoding === null ? {} : { "content-encoding": encoding };
  return new Response(body, { headers: { "content-type": asset.contentType, ...encodingHeader, ...common } });
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
  return (
    new Elysia({ name: "console" })
      .get("/", ({ request }) => Response.redirect(new URL("/console/", request.url).pathname, 302), {
        detail: { hide: true },
      })
      .get("/console", ({ request }) => page(request), { detail: { hide: true } })
      // Browsers ask every host for /favicon.ico (a page without a <link rel="icon">, a JSON answer): the console's.
      .get(
        "/favicon.ico",
        async ({ request }) => {
          const assets = await consoleAssets();
          const icon = assets.files.get("favicon.svg");
          return icon ? answer(request, icon, {}, "public, max-age=86400") : notFound();
        },
        { detail: { hide: true } },
      )
      .get(
        "/console/assets/:file",
        async ({ request, params }) => {
          const assets = await consoleAssets();
          const asset = assets.files.get(params.file);
          if (!asset) return notFound();
          const versioned = new URL(request.url).searchParams.get("v") === assets.version;
          return answer(request, asset, {}, versioned ? immutable : "no-cache");
        },
        { detail: { hide: true } },
      )
      .get("/console/*", ({ request }) => page(request), { detail: { hide: true } })
  );
}
