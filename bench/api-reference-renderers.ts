/**
 * Which renderer draws svc-hub's OpenAPI document fastest in Debian's Chromium: the comparison behind the console's
 * choice of RapiDoc for /console/api (docs/dependencies.md). Each candidate's browser bundle is taken from its npm
 * tarball (`npm pack`, from npm's cache when it is there; nothing is installed), served brotli-compressed and
 * cacheable with the API reference page's Content-Security-Policy, and given /openapi.json as the admin token's
 * holder sees it. A load is a new tab, from navigation until the "hosted data layer (v1)" group is drawn; rounds
 * take the candidates in turn, so that a busy machine slows them alike. Besides the time, the page's main-thread
 * CPU time (Chromium's ThreadTime), which depends less on what else the machine runs.
 *
 *   bun bench/api-reference-renderers.ts            # 7 rounds; writes bench/RESULTS.md "## API reference renderers"
 *   bun bench/api-reference-renderers.ts --rounds 3 # fewer, printed only
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { brotliCompressSync } from "node:zlib";
import { launchChromium } from "../e2e/chromium.ts";
import { spawnServer } from "../tools/spawn-server.ts";
import { writeResultsSection } from "./lib/results-section.ts";

const root = resolve(import.meta.dir, "..");
const args = process.argv.slice(2);
const rounds = args.includes("--rounds") ? Number(args[args.indexOf("--rounds") + 1]) : 7;
const ready = "text=hosted data layer (v1)";

interface Candidate {
  readonly name: string;
  readonly spec: string;
  readonly bundle: string;
  readonly stylesheet?: string;
  /** The page's own script, given `content` (the document): draws it into #reference. */
  readonly start: string;
}

const candidates: readonly Candidate[] = [
  {
    name: "Scalar",
    spec: "@scalar/api-reference@1.76.0",
    bundle: "dist/browser/standalone.js",
    start: `Scalar.createApiReference("#reference", { content, withDefaultFonts: false, showDeveloperTools: "never", telemetry: false, agent: { disabled: true }, mcp: { disabled: true } });`,
  },
  {
    // As adapters/console/ui/api-reference.ts sets it up.
    name: "RapiDoc",
    spec: "rapidoc@9.3.8",
    bundle: "dist/rapidoc-min.js",
    start: `const element = document.createElement("rapi-doc");
for (const [name, value] of Object.entries({ "render-style": "focused", "show-header": "false", "load-fonts": "false", "allow-try": "false", "allow-server-selection": "false", "allow-authentication": "false", "allow-spec-url-load": "false", "allow-spec-file-load": "false", "show-components": "false", theme: "light" })) element.setAttribute(name, value);
document.getElementById("reference").append(element);
await element.loadSpec(content);`,
  },
  {
    name: "Redoc 2",
    spec: "redoc@2.5.4",
    bundle: "bundles/redoc.standalone.js",
    start: `Redoc.init(content, {}, document.getElementById("reference"));`,
  },
  {
    name: "Swagger UI",
    spec: "swagger-ui-dist@5.35.0",
    bundle: "swagger-ui-bundle.js",
    stylesheet: "swagger-ui.css",
    start: `SwaggerUIBundle({ spec: content, dom_id: "#reference", supportedSubmitMethods: [], validatorUrl: null });`,
  },
];

const policy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
].join("; ");

interface Served {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly type: string;
  readonly brotli?: Uint8Array<ArrayBuffer>;
}

/** The candidates' files out of their tarballs, by the address this benchmark serves them at. */
function fetchCandidates(folder: string): Map<string, Served> {
  const files = new Map<string, Served>();
  const text = (body: string) => new TextEncoder().encode(body);
  for (const [index, candidate] of candidates.entries()) {
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", candidate.spec, "--json", "--ignore-scripts", "--pack-destination", folder], {
        cwd: folder,
        encoding: "utf8",
      }),
    ) as Array<{ filename: string }>;
    if (packed === undefined) throw new Error(`npm pack ${candidate.spec} made no tarball`);
    const wanted = [candidate.bundle, ...(candidate.stylesheet ? [candidate.stylesheet] : [])];
    const into = join(folder, String(index));
    execFileSync("mkdir", ["-p", into]);
    execFileSync("tar", [
      "-xzf",
      join(folder, packed.filename),
      "-C",
      into,
      ...wanted.map((path) => `package/${path}`),
    ]);
    const bundle = new Uint8Array(readFileSync(join(into, "package", candidate.bundle)));
    files.set(`/${index}/bundle.js`, {
      body: bundle,
      type: "text/javascript",
      brotli: new Uint8Array(brotliCompressSync(bundle)),
    });
    if (candidate.stylesheet)
      files.set(`/${index}/style.css`, {
        body: new Uint8Array(readFileSync(join(into, "package", candidate.stylesheet))),
        type: "text/css",
      });
    files.set(`/${index}/start.js`, {
      body: text(
        `(async () => { const content = await (await fetch("/openapi.json")).json(); ${candidate.start} })();`,
      ),
      type: "text/javascript",
    });
    files.set(`/${index}/`, {
      body: text(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${candidate.name}</title>${candidate.stylesheet ? `<link rel="stylesheet" href="/${index}/style.css">` : ""}<script src="/${index}/bundle.js" defer></script><script src="/${index}/start.js" defer></script></head><body><div id="reference"></div></body></html>`,
      ),
      type: "text/html",
    });
  }
  return files;
}

/** svc-hub's OpenAPI document as the console's API reference gets it once signed in (the admin API included). */
async function openApiDocument(): Promise<Uint8Array<ArrayBuffer>> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-renderers-"));
  const adminToken = `bench-${crypto.randomUUID()}`;
  const server = await spawnServer({ root, dataDir, adminToken });
  try {
    const answer = await fetch(`${server.url.replace(/\/$/, "")}/openapi.json`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    return new Uint8Array(await answer.arrayBuffer());
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const folder = mkdtempSync(join(tmpdir(), "svc-hub-renderer-packages-"));
const files = fetchCandidates(folder);
files.set("/openapi.json", { body: await openApiDocument(), type: "application/json" });
const http = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    const path = new URL(request.url).pathname;
    const file = files.get(path);
    if (!file) return new Response("not found", { status: 404 });
    const brotli = file.brotli && /\bbr\b/.test(request.headers.get("accept-encoding") ?? "") ? file.brotli : null;
    return new Response(brotli ?? file.body, {
      headers: {
        "content-type": file.type,
        "content-security-policy": policy,
        "cache-control":
          path.endsWith("/") || path.endsWith(".json") ? "no-cache" : "public, max-age=31536000, immutable",
        ...(brotli ? { "content-encoding": "br" } : {}),
      },
    });
  },
});
const browser = await launchChromium();
const loads = candidates.map(() => ({ times: [] as number[], threadTimes: [] as number[] }));
try {
  for (let round = 0; round < rounds; round += 1) {
    for (const [index, candidate] of candidates.entries()) {
      const page = await browser.context.newPage();
      const devtools = await browser.context.newCDPSession(page);
      await devtools.send("Performance.enable");
      const started = performance.now();
      await page.goto(`http://127.0.0.1:${http.port}/${index}/`);
      await page.locator(ready).first().waitFor({ timeout: 60_000 });
      const time = performance.now() - started;
      const { metrics } = (await devtools.send("Performance.getMetrics")) as {
        metrics: Array<{ name: string; value: number }>;
      };
      const threadTime = (metrics.find((metric) => metric.name === "ThreadTime")?.value ?? Number.NaN) * 1000;
      loads[index]?.times.push(time);
      loads[index]?.threadTimes.push(threadTime);
      console.log(
        `round ${round + 1}: ${candidate.name} ${time.toFixed(0)} ms (main thread ${threadTime.toFixed(0)} ms)`,
      );
      await page.close();
    }
  }
} finally {
  await browser.close();
  await http.stop(true);
  rmSync(folder, { recursive: true, force: true });
}

const kb = (bytes: number) => `${Math.round(bytes / 1000)} KB`;
const table = [
  `${rounds} rounds, load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} at the end:`,
  "",
  "| Renderer | Script (brotli) | First load | Its main thread | Median of the rest | Their main thread (median) |",
  "|---|---:|---:|---:|---:|---:|",
  ...candidates.map((candidate, index) => {
    const { times, threadTimes } = loads[index] ?? { times: [], threadTimes: [] };
    const script = files.get(`/${index}/bundle.js`);
    return `| ${candidate.name} (${candidate.spec.replace(/^.*@/, "")}) | ${kb(script?.body.length ?? 0)} (${kb(script?.brotli?.length ?? 0)}) | ${(times[0] ?? 0).toFixed(0)} ms | ${(threadTimes[0] ?? 0).toFixed(0)} ms | ${median(times.slice(1)).toFixed(0)} ms | ${median(threadTimes.slice(1)).toFixed(0)} ms |`;
  }),
].join("\n");
console.log(`\n${table}`);
if (!args.includes("--rounds")) {
  const heading = "## API reference renderers";
  writeResultsSection(
    heading,
    [
      heading,
      "",
      `\`bun bench/api-reference-renderers.ts\` on ${new Date().toISOString().slice(0, 10)} (Bun ${Bun.version}, Debian's Chromium, headless, ${process.platform}/${process.arch}):`,
      "svc-hub's /openapi.json with the admin API (the document the console's API reference shows once signed in) drawn",
      "by each renderer's npm bundle, served brotli-compressed and cacheable under the page's Content-Security-Policy; a",
      'load is a new tab, from navigation until the "hosted data layer (v1)" group is drawn (the first with an empty',
      "cache, the rest with the script cached); the candidates take turns in each round. Main thread: Chromium's",
      "ThreadTime of the page, the CPU time it took, which depends less on the machine's other work than the time does.",
      "",
      table,
      "",
    ].join("\n"),
  );
}
