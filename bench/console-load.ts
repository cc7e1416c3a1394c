/**
 * How long the web console takes to load on the demo data, in Debian's Chromium: from navigation to
 * /console/events until the stored events table shows its rows, and to the first paint of each other page.
 * The target (issue 32): under a second. The API reference (/console/api) until RapiDoc has rendered svc-hub's
 * document (its "hosted data layer (v1)" group): within 2 s (issue 41); bench/api-reference-renderers.ts compares
 * it with other renderers.
 *
 *   bun bench/console-load.ts              # 10 loads per page; writes bench/RESULTS.md "## Console load"
 *   bun bench/console-load.ts --loads 3    # fewer, printed only
 *
 * svc-hub runs as `npm start` does (demo configuration, fresh data directory), with 1,000 events collected
 * first so the table is full. Each load is a new tab; the first load of a run has an empty cache, the others
 * revalidate the console's files (ETag, 304) as a browser does after the first visit.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { launchChromium } from "../e2e/chromium.ts";
import { spawnServer } from "../tools/spawn-server.ts";
import { writeResultsSection } from "./lib/results-section.ts";

const root = resolve(import.meta.dir, "..");
const args = process.argv.slice(2);
const loads = args.includes("--loads") ? Number(args[args.indexOf("--loads") + 1]) : 10;
const pages = [
  { path: "/console/events", ready: "table tbody tr td a" },
  { path: "/console/visitors", ready: "form.lookup" },
  { path: "/console/data", ready: "table caption" },
  { path: "/console/time", ready: "table.pairs" },
  { path: "/console/api", ready: "text=hosted data layer (v1)" },
] as const;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-console-bench-"));
const adminToken = `bench-${crypto.randomUUID()}`;
const server = await spawnServer({ root, dataDir, adminToken });
const browser = await launchChromium();
const results: Array<{ path: string; first: number; median: number; p95: number }> = [];
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
  for (const { path, ready } of pages) {
    const times: number[] = [];
    for (let load = 0; load < loads; load += 1) {
      const page = await browser.context.newPage();
      const started = performance.now();
      await page.goto(`${url}${path}`);
      await page.waitForSelector(ready, { timeout: 10_000 });
      times.push(performance.now() - started);
      await page.close();
    }
    const [first = Number.NaN, ...rest] = times;
    const run = { path, first, median: percentile(rest, 50), p95: percentile(rest, 95) };
    results.push(run);
    console.log(
      `${path}: first ${run.first.toFixed(0)} ms, median ${run.median.toFixed(0)} ms, p95 ${run.p95.toFixed(0)} ms`,
    );
  }
} finally {
  await browser.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

if (!args.includes("--loads")) {
  const heading = "## Console load";
  writeResultsSection(
    heading,
    [
      heading,
      "",
      `\`bun bench/console-load.ts\` on ${new Date().toISOString().slice(0, 10)} (Bun ${Bun.version}, Debian's Chromium, headless, ${process.platform}/${process.arch}):`,
      "navigation until the page shows what it is for (the events table's rows with 1,000 events stored; the other pages'",
      `first table or form; the API reference's "hosted data layer (v1)" group), ${loads} loads per page in new tabs.`,
      "Targets: under 1 s; the API reference within 2 s.",
      "",
      "| Page | First load (empty cache) | Median of the rest | p95 of the rest |",
      "|---|---:|---:|---:|",
      ...results.map(
        (run) =>
          `| ${run.path} | ${run.first.toFixed(0)} ms | ${run.median.toFixed(0)} ms | ${run.p95.toFixed(0)} ms |`,
      ),
      "",
    ].join("\n"),
  );
}
