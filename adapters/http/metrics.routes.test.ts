/**
 * Issue 33, part 5: GET /metrics in Prometheus' text format, behind the admin token, read by a Prometheus
 * text-format parser after some /event traffic; in process (the app with the request log, as main.ts wraps
 * it) and from the server as a process.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import parsePrometheusTextFormat, { type PrometheusFamily } from "parse-prometheus-text-format";
import { inProcessBase } from "../../harness/target.ts";
import { spawnServer } from "../../tools/spawn-server.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openDemoService } from "../server/demo-service.ts";
import { withRequestLog } from "./request-log.ts";

const root = resolve(import.meta.dir, "../..");
const adminToken = "metrics-test-admin-token";
const admin = { authorization: `Bearer ${adminToken}` };
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Send = (path: string, init?: RequestInit) => Promise<Response>;

async function openInProcess(): Promise<Send> {
  const service = await openDemoService({ adminToken });
  cleanups.push(() => service.close());
  service.start();
  const serve = withRequestLog((request) => service.app.handle(request), createMemoryLogger(), service.deps.metrics);
  return (path, init) => serve(new Request(`${inProcessBase}${path}`, init));
}

/** Three events stored, one crawler filtered, two refusals of one reason and one of another. */
async function sendTraffic(send: Send): Promise<void> {
  for (const event of ["a", "b", "c"])
    expect((await send(`/event?svc_account=acme&svc_profile=main&svc_event=${event}`)).status).toBe(200);
  const bot = await send("/event?svc_account=acme&svc_profile=main", { headers: { "user-agent": "Googlebot/2.1" } });
  expect(bot.status).toBe(200);
  for (const account of ["nobody", "no-one"])
    expect((await send(`/event?svc_account=${account}&svc_profile=main`)).status).toBe(400);
  expect((await send("/event?svc_profile=main")).status).toBe(400);
}

async function scrapeText(send: Send): Promise<string> {
  const answer = await send("/metrics", { headers: admin });
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return answer.text();
}

async function scrape(send: Send): Promise<Map<string, PrometheusFamily>> {
  const families = parsePrometheusTextFormat(await scrapeText(send));
  return new Map(families.map((family) => [family.name, family]));
}

/**
 * One series of a labelled histogram, its labels taken off: the parser folds every series of a histogram into
 * one (it keeps only `le` of the labels), so it is handed them one at a time.
 */
function histogramSeries(text: string, name: string, labels: Record<string, string>) {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  const lines = text
    .split("\n")
    .filter(
      (line) => line.startsWith(`# HELP ${name} `) || line.startsWith(`# TYPE ${name} `) || line.startsWith(`${name}_`),
    )
    .filter((line) => line.startsWith("#") || wanted.every((pair) => line.includes(pair)))
    .map((line) => wanted.reduce((kept, pair) => kept.replace(new RegExp(`,?${RegExp.escape(pair)}`), ""), line))
    .map((line) => line.replace("{,", "{").replace("{}", ""));
  const [family] = parsePrometheusTextFormat(`${lines.join("\n")}\n`);
  return family?.metrics[0];
}

function sampleValue(
  families: Map<string, PrometheusFamily>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const family = families.get(name);
  const sample = family?.metrics.find((metric) =>
    Object.entries(labels).every(([label, value]) => metric.labels?.[label] === value),
  );
  return Number(sample?.value ?? Number.NaN);
}

describe("GET /metrics (issue 33)", () => {
  it("counts accepted events, filtered bots and refusals by reason, read by a Prometheus text-format parser", async () => {
    const send = await openInProcess();
    await sendTraffic(send);
    const metrics = await scrape(send);
    expect(metrics.get("svc_hub_events_accepted_total")?.type).toBe("COUNTER");
    expect(sampleValue(metrics, "svc_hub_events_accepted_total")).toBe(3);
    expect(sampleValue(metrics, "svc_hub_events_filtered_bots_total")).toBe(1);
    expect(sampleValue(metrics, "svc_hub_events_refused_total", { reason: "unknownAccountOrProfile" })).toBe(2);
    expect(sampleValue(metrics, "svc_hub_events_refused_total", { reason: "missingAccountOrProfile" })).toBe(1);
    expect(sampleValue(metrics, "svc_hub_event_commit_queue_depth")).toBe(0);
    // Sequential requests: a batch each, of one event.
    const batches = metrics.get("svc_hub_event_commit_batch_size")?.metrics[0];
    expect(metrics.get("svc_hub_event_commit_batch_size")?.type).toBe("HISTOGRAM");
    expect([batches?.count, batches?.buckets?.["1"], batches?.sum]).toEqual(["3", "3", "3"]);
    expect(sampleValue(metrics, "svc_hub_event_commit_batches_total", { outcome: "committed" })).toBe(3);
    // The scrape itself is in flight.
    expect(sampleValue(metrics, "svc_hub_http_requests_in_flight")).toBe(1);
    // Every background worker, caught up after a wait.
    expect((await send("/admin/wait", { method: "POST", headers: admin })).status).toBe(200);
    const after = await scrape(send);
    const workers = after.get("svc_hub_background_overdue_seconds")?.metrics ?? [];
    expect(workers.map((metric) => metric.labels?.worker)).toContain("profiles");
    expect(workers.map((metric) => Number(metric.value))).toEqual(workers.map(() => 0));
    expect((after.get("svc_hub_background_worker_failing")?.metrics ?? []).length).toBe(workers.length);
  });

  it("counts requests by route template and status (never the raw path) with a latency histogram", async () => {
    const send = await openInProcess();
    await sendTraffic(send);
    const visitor = "/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors";
    await send(`${visitor}/ann@example.com`);
    await send("/no/such/path-123");
    const text = await scrapeText(send);
    const metrics = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
    const requests = metrics.get("svc_hub_http_requests_total");
    expect(sampleValue(metrics, "svc_hub_http_requests_total", { route: "/event", status: "200" })).toBe(4);
    expect(sampleValue(metrics, "svc_hub_http_requests_total", { route: "/event", status: "400" })).toBe(3);
    expect(sampleValue(metrics, "svc_hub_http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
    const routes = (requests?.metrics ?? []).map((metric) => metric.labels?.route ?? "");
    expect(routes.some((route) => route.startsWith("/personalization/accounts/:"))).toBe(true);
    expect(routes.join(" ")).not.toContain("ann@example.com");
    expect(routes.join(" ")).not.toContain("path-123");
    expect(metrics.get("svc_hub_http_request_duration_seconds")?.type).toBe("HISTOGRAM");
    const events = histogramSeries(text, "svc_hub_http_request_duration_seconds", { method: "GET", route: "/event" });
    expect(events?.count).toBe("7");
    expect(events?.buckets?.["+Inf"]).toBe("7");
    expect(Number(events?.sum)).toBeGreaterThan(0);
  });

  it("answers 401 without the admin token, and leaves /metrics out of the public OpenAPI document", async () => {
    const send = await openInProcess();
    expect((await send("/metrics")).status).toBe(401);
    expect((await send("/metrics", { headers: { authorization: "Bearer wrong-token-wrong-token" } })).status).toBe(401);
    const open = (await (await send("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(open.paths)).not.toContain("/metrics");
    const full = (await (await send("/openapi.json", { headers: admin })).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(full.paths)).toContain("/metrics");
  });

  it("a tenant's counters go back to zero with POST /admin/reset", async () => {
    const send = await openInProcess();
    await sendTraffic(send);
    expect((await send("/admin/reset", { method: "POST", headers: admin })).status).toBe(200);
    const metrics = await scrape(send);
    expect(sampleValue(metrics, "svc_hub_events_accepted_total")).toBe(0);
    expect(metrics.get("svc_hub_events_refused_total")?.metrics ?? []).toHaveLength(0);
  });

  it("the server as a process serves them (libSQL, background thread), its requests counted by the request log", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-metrics-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const server = await spawnServer({ root, dataDir, adminToken });
    cleanups.push(() => server.stop());
    const send: Send = (path, init) => fetch(`${server.url}${path}`, init);
    expect((await send("/metrics")).status).toBe(401);
    await sendTraffic(send);
    const metrics = await scrape(send);
    expect(sampleValue(metrics, "svc_hub_events_accepted_total")).toBe(3);
    expect(sampleValue(metrics, "svc_hub_events_refused_total", { reason: "unknownAccountOrProfile" })).toBe(2);
    expect(sampleValue(metrics, "svc_hub_http_requests_total", { route: "/event", status: "200" })).toBe(4);
    // The workers of both threads: the events' (profiles) in the background thread, the light ones here.
    const workers = (metrics.get("svc_hub_background_overdue_seconds")?.metrics ?? []).map(
      (metric) => metric.labels?.worker,
    );
    expect(workers).toEqual(expect.arrayContaining(["profiles", "datalayer-publisher"]));
    // Refused before routing (the admin token is checked first): no route is known, so `unmatched`.
    expect(sampleValue(metrics, "svc_hub_http_requests_total", { route: "unmatched", status: "401" })).toBe(1);
  });
});
