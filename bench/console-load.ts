/**
 * How long the web console takes to load on the demo data, in Debian's Chromium: from navigation to
 * /console/events until the stored events table shows its rows, and to the first paint of each other page.
 * The target (issue 32): under a second. The API reference (/console/api): within 2 s (issue 41), until it is
 * rendered, which means here that its navigation lists every operation of /openapi.json as the admin token's holder
 * reads it (the admin API included) and the overview (the document's title and description) is drawn beside it:
 * what a user sees before choosing an operation. bench/api-reference-renderers.ts compares it with other renderers.
 *
 *   bun bench/console-load.ts              # 10 loads per page; writes bench/RESULTS.md "## Console load"
 *   bun bench/console-load.ts --loads 3    # fewer, printed only
 *   bun bench/console-load.ts --page /console/api   # one page, printed only
 *
 * svc-hub runs as `npm start` does (demo configuration, fresh data directory), with 1,000 events collected
 * first so the table is full. Each load is a new tab; the first load of a run has an empty cache, the others
 * revalidate the console's files (ETag, 304) as a browser does after the first visit. Besides the time, the
 * median of each page's main-thread CPU time (Chromium's ThreadTime), which depends less on the machine's other work.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Response } from "playwright-core";
import { launchChromium } from "../e2e/chromium.ts";
import { spawnServer } from "../tools/spawn-server.ts";
import { writeResultsSection } from "./lib/results-section.ts";

/** The operations of an OpenAPI document, as RapiDoc names its navigation's entries: `<method>-<path>`. */
function operationsOf(document: { paths?: Record<string, Record<string, unknown>> }): Set<string> {
  const methods = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);
  const operations = new Set<string>();
  for (const [path, item] of Object.entries(document.paths ?? {}))
    for (const method of Object.keys(item)) if (methods.has(method)) operations.add(`${method}-${path}`);
  return operations;
}

/** What the API reference must show of `answer`, /openapi.json as the page was sent it: the admin API's included. */
async function expectedOf(answer: Response): Promise<{ operations: string[]; title: string }> {
  const document = await answer.json();
  const operations = [...operationsOf(document)];
  if (!operations.some((operation) => operation.includes("-/admin/")))
    throw new Error("the API reference page was sent /openapi.json without the admin API");
  return { operations, title: String(document.info?.title ?? "") };
}

/**
 * Whether the API reference is rendered (run in the page): RapiDoc's navigation has an entry for each of
 * `operations` (`data-content-id`, where RapiDoc writes a path's `{` and `}` as `-`) and its overview shows `title`.
 */
function apiReferenceRendered({ operations, title }: { operations: string[]; title: string }): boolean {
  const root = document.querySelector("rapi-doc")?.shadowRoot;
  if (!root) return false;
  const listed = new Set(
    [...root.querySelectorAll(".nav-bar-path")].map((entry) => entry.getAttribute("data-content-id")),
  );
  const overview = root.querySelector("#api-title")?.textContent ?? "";
  return overview.includes(title) && operations.every((operation) => listed.has(operation.replace(/[{}]/g, "-")));
}

const root = resolve(import.meta.dir, "..");
const args = process.argv.slice(2);
const loads = args.includes("--loads") ? Number(args[args.indexOf("--loads") + 1]) : 10;
const pages = [
  { path: "/console/events", ready: "table tbody tr td a" },
  { path: "/console/visitors", ready: "form.lookup" },
  { path: "/console/data", ready: "table caption" },
  { path: "/console/time", ready: "table.pairs" },
  { path: "/console/api", ready: apiReferenceRendered },
] as const;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-console-bench-"));
const adminToken = `bench-${crypto.randomUUID()}`;
const server = await spawnServer({ root, dataDir, adminToken });
const browser = await launchChromium();
const results: Array<{ path: string; first: number; median: number; p95: number; mainThread: number }> = [];
try {
  const url = server.url.replace(/\/$/, "");
  for (let i = 0; i < 1000; i += 1) {
    const query = new URLSearchParams({
      svc_account: "acme",
      svc_profile: "main",
      svc_event: i % 10 === 0 ? "purchase" : "page_view",
      svc_visitor_id: `bench-visitor-${i % 100}`,
      email_address: `visitor-${i % 100}@example.com`,
    });
    const answer = await fetch(`${url}/event?${query}`);
    await answer.arrayBuffer();
  }
  await browser.context.addInitScript((token) => sessionStorage.setItem("svc-hub.console.token", token), adminToken);
  const only = args.includes("--page") ? args[args.indexOf("--page") + 1] : undefined;
  for (const { path, ready } of pages.filter((page) => only === undefined || page.path === only)) {
    const times: number[] = [];
    const mainThread: number[] = [];
    for (let load = 0; load < loads; load += 1) {
      const page = await browser.context.newPage();
      const devtools = await browser.context.newCDPSession(page);
      await devtools.send("Performance.enable");
      const started = performance.now();
      if (typeof ready === "string") {
        await page.goto(`${url}${path}`);
        await page.waitForSelector(ready, { timeout: 10_000 });
      } else {
        // The document the page itself is sent: the first load is the server's first request for it, as for a user.
        const [answer] = await Promise.all([
          page.waitForResponse((response) => new URL(response.url()).pathname === "/openapi.json"),
          page.goto(`${url}${path}`),
        ]);
        await page.waitForFunction(ready, await expectedOf(answer), { timeout: 10_000, polling: "raf" });
      }
      times.push(performance.now() - started);
      const { metrics } = (await devtools.send("Performance.getMetrics")) as {
        metrics: Array<{ name: string; value: number }>;
      };
      mainThread.push((metrics.find((metric) => metric.name === "ThreadTime")?.value ?? Number.NaN) * 1000);
      await page.close();
    }
    const [first = Number.NaN, ...rest] = times;
    const run = {
      path,
      first,
      median: percentile(rest, 50),
      p95: percentile(rest, 95),
      mainThread: percentile(mainThread, 50),
    };
    results.push(run);
    console.log(
      `${path}: first ${run.first.toFixed(0)} ms, median ${run.median.toFixed(0)} ms, p95 ${run.p95.toFixed(0)} ms, main thread ${run.mainThread.toFixed(0)} ms`,
    );
  }
} finally {
  await browser.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

if (!args.includes("--loads") && !args.includes("--page")) {
  const heading = "## Console load";
  writeResultsSection(
    heading,
    [
      heading,
      "",
      `\`bun bench/console-load.ts\` on ${new Date().toISOString().slice(0, 10)} (Bun ${Bun.version}, Debian's Chromium, headless, ${process.platform}/${process.arch}):`,
      "navigation until the page shows what it is for (the events table's rows with 1,000 events stored; the other pages'",
      "first table or form; the API reference's navigation listing every operation of the document, admin API included,",
      `beside its overview), ${loads} loads per page in new tabs. Main thread: the median of the page's CPU time`,
      "(Chromium's ThreadTime), which depends less on the machine's other work. Targets: under 1 s; the API reference",
      `within 2 s. Load average at the end: ${loadavg()
        .map((load) => load.toFixed(2))
        .join(" ")}.`,
      "",
      "| Page | First load (empty cache) | Median of the rest | p95 of the rest | Main thread (median) |",
      "|---|---:|---:|---:|---:|",
      ...results.map(
        (run) =>
          `| ${run.path} | ${run.first.toFixed(0)} ms | ${run.median.toFixed(0)} ms | ${run.p95.toFixed(0)} ms | ${run.mainThread.toFixed(0)} ms |`,
      ),
      "",
    ].join("\n"),
  );
}
