/**
 * The console's files: the page, its style sheet, and its script bundled from `ui/` by Bun the first time
 * the console is asked for (a server that never serves it never builds it), kept in memory after, each with its
 * gzip form. The API reference's renderer is RapiDoc's bundle, which `npm run build` writes, compressed only, as
 * `dist/console/rapidoc.js.br` and `rapidoc.js.gz` (tools/fetch-api-reference.mjs), and the npm package carries.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { inSingleExecutable, packagedFilePath } from "../runtime/packaged-files.ts";

/** A form of an asset's body other than the body itself, named as Content-Encoding names it. */
export type ContentEncoding = "br" | "gzip";

export interface ConsoleAsset {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly contentType: string;
  readonly etag: string;
  /** The body compressed, by encoding: sent to a browser that accepts the encoding. */
  readonly encoded: ReadonlyMap<ContentEncoding, Uint8Array<ArrayBuffer>>;
}

export interface ConsoleAssets {
  /** The console's page, the same for every path under /console. */
  readonly page: ConsoleAsset;
  /** The API reference's page (/console/api). */
  readonly apiReferencePage: ConsoleAsset;
  /** console.js, api-reference.js, console.css, favicon.svg and, when built, rapidoc.js. */
  readonly files: ReadonlyMap<string, ConsoleAsset>;
  /** The `v` of the pages' asset addresses: a hash of every file, so a new file is a new address. */
  readonly version: string;
}

const uiDir = packagedFilePath("adapters/console/ui");

/** The console's icon (the browser's tab, and /favicon.ico): a blue square with a white "s", 300 bytes. */
const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0a4f96"/><text x="16" y="23" font-family="system-ui,sans-serif" font-size="20" font-weight="700" text-anchor="middle" fill="#fff">s</text></svg>`;
const apiReferenceFile = join("dist", "console", "rapidoc.js.br");

function assetOf(
  body: Uint8Array<ArrayBuffer> | string,
  contentType: string,
  encoded: ReadonlyMap<ContentEncoding, Uint8Array<ArrayBuffer>> = new Map(),
): ConsoleAsset {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return { body: bytes, contentType, etag: `"${Bun.hash(bytes).toString(36)}"`, encoded };
}

/** The gzip form of a small file, made here (the console's own script and style sheet: a few milliseconds). */
function gzipped(body: Uint8Array<ArrayBuffer>): ReadonlyMap<ContentEncoding, Uint8Array<ArrayBuffer>> {
  return new Map([["gzip", Bun.gzipSync(body)]]);
}

/**
 * The API reference's renderer from its brotli form and the gzip form beside it (`rapidoc.js.gz`), as the build
 * wrote them: the body itself, for a client that accepts neither, is decompressed from one of them here.
 */
async function apiReferenceAsset(brotliPath: string): Promise<ConsoleAsset> {
  const br = new Uint8Array(readFileSync(brotliPath));
  const gzipPath = brotliPath.replace(/\.br$/, ".gz");
  const gzip = existsSync(gzipPath) ? new Uint8Array(readFileSync(gzipPath)) : null;
  // node:zlib (brotli) only when the gzip form is missing: a start does not load it for the console.
  const body = new Uint8Array(gzip ? Bun.gunzipSync(gzip) : (await import("node:zlib")).brotliDecompressSync(br));
  const encoded = new Map<ContentEncoding, Uint8Array<ArrayBuffer>>([
    ["br", br],
    ["gzip", gzip ?? Bun.gzipSync(body)],
  ]);
  return assetOf(body, "text/javascript; charset=utf-8", encoded);
}

/**
 * The API reference's renderer, RapiDoc's bundle in its brotli form: `dist/console/rapidoc.js.br` (with
 * `rapidoc.js.gz` beside it) of a built or installed svc-hub, in this folder or one above it; null when svc-hub
 * was built without it (the build could not fetch it).
 */
export function findApiReferenceBundle(from = import.meta.dir): string | null {
  if (inSingleExecutable) {
    const embedded = packagedFilePath(apiReferenceFile);
    return existsSync(embedded) ? embedded : null;
  }
  let dir = from;
  for (;;) {
    const candidate = join(dir, apiReferenceFile);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The console's scripts by file name, bundled from `ui/`; the single executable's build embeds them ready-made. */
export async function bundleConsoleScripts(): Promise<Map<string, Uint8Array<ArrayBuffer>>> {
  const built = await Bun.build({
    entrypoints: [join(uiDir, "main.tsx"), join(uiDir, "api-reference.ts")],
    target: "browser",
    format: "esm",
    minify: true,
    jsx: { runtime: "automatic", importSource: "preact" },
  });
  if (!built.success) throw new AggregateError(built.logs, "the console's script did not build");
  const outputs = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const output of built.outputs) {
    const name = output.path.replace(/^.*[\\/]/, "");
    outputs.set(name === "main.js" ? "console.js" : name, new Uint8Array(await output.arrayBuffer()));
  }
  return outputs;
}

/** The scripts tools/build-exe.ts bundled and embedded beside the page: the executable holds no sources to bundle. */
function embeddedConsoleScripts(): Map<string, Uint8Array<ArrayBuffer>> {
  const names = readdirSync(uiDir).filter((name) => name.endsWith(".js"));
  return new Map(names.map((name) => [name, new Uint8Array(readFileSync(join(uiDir, name)))]));
}

async function build(): Promise<ConsoleAssets> {
  const scripts = inSingleExecutable ? embeddedConsoleScripts() : await bundleConsoleScripts();
  const files = new Map<string, ConsoleAsset>();
  for (const [name, body] of scripts) files.set(name, assetOf(body, "text/javascript; charset=utf-8", gzipped(body)));
  const css = new Uint8Array(readFileSync(join(uiDir, "console.css")));
  files.set("console.css", assetOf(css, "text/css; charset=utf-8", gzipped(css)));
  files.set("favicon.svg", assetOf(faviconSvg, "image/svg+xml"));
  const renderer = findApiReferenceBundle();
  if (renderer) files.set("rapidoc.js", await apiReferenceAsset(renderer));
  // Each asset's URL carries a hash of them all, so a browser never mixes files of two versions.
  const version = Bun.hash([...files.values()].map((file) => file.etag).join()).toString(36);
  const pageOf = (file: string) =>
    assetOf(readFileSync(join(uiDir, file), "utf8").replaceAll("__VERSION__", version), "text/html; charset=utf-8");
  return { page: pageOf("index.html"), apiReferencePage: pageOf("api-reference.html"), files, version };
}

let built: Promise<ConsoleAssets> | null = null;

/** The console's files, built once per process; a failed build is tried again at the next request. */
export function consoleAssets(): Promise<ConsoleAssets> {
  built ??= build().catch((error) => {
    built = null;
    throw error;
  });
  return built;
}
