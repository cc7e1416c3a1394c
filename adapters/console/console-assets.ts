/**
 * The console's files: the page, its style sheet, and its script bundled from `ui/` by Bun the first time
 * the console is asked for (a server that never serves it never builds it), kept in memory after. The API
 * reference's renderer is Scalar's standalone bundle, copied into `dist/console/` when svc-hub is built (so a
 * packed svc-hub carries it without Scalar's own dependencies) or read from node_modules in a clone.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { inSingleExecutable, packagedFilePath } from "../runtime/packaged-files.ts";

export interface ConsoleAsset {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly contentType: string;
  readonly etag: string;
}

export interface ConsoleAssets {
  /** The console's page, the same for every path under /console. */
  readonly page: ConsoleAsset;
  /** The API reference's page (/console/api). */
  readonly apiReferencePage: ConsoleAsset;
  /** console.js, api-reference.js, console.css and, when installed, scalar.js. */
  readonly files: ReadonlyMap<string, ConsoleAsset>;
}

const uiDir = packagedFilePath("adapters/console/ui");
const scalarFile = join("@scalar", "api-reference", "dist", "browser", "standalone.js");

function assetOf(body: Uint8Array<ArrayBuffer> | string, contentType: string): ConsoleAsset {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return { body: bytes, contentType, etag: `"${Bun.hash(bytes).toString(36)}"` };
}

/** Scalar's standalone bundle: dist/console/scalar.js of a packed svc-hub, else node_modules up from here. */
export function findScalarBundle(from = import.meta.dir): string | null {
  let dir = from;
  for (;;) {
    for (const candidate of [join(dir, "dist", "console", "scalar.js"), join(dir, "node_modules", scalarFile)]) {
      if (existsSync(candidate)) return candidate;
    }
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
  for (const [name, body] of scripts) files.set(name, assetOf(body, "text/javascript; charset=utf-8"));
  files.set("console.css", assetOf(readFileSync(join(uiDir, "console.css")), "text/css; charset=utf-8"));
  const scalar = findScalarBundle();
  if (scalar) files.set("scalar.js", assetOf(readFileSync(scalar), "text/javascript; charset=utf-8"));
  // Each asset's URL carries a hash of them all, so a browser never mixes files of two versions.
  const version = Bun.hash([...files.values()].map((file) => file.etag).join()).toString(36);
  const pageOf = (file: string) =>
    assetOf(readFileSync(join(uiDir, file), "utf8").replaceAll("__VERSION__", version), "text/html; charset=utf-8");
  return { page: pageOf("index.html"), apiReferencePage: pageOf("api-reference.html"), files };
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
