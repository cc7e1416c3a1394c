/**
 * Cases 1 and 2: the collection endpoint, durable (a 200 only once the event is committed, synchronous=FULL).
 * GET: the pixel with a typical query; POST: a 300-byte JSON body. Returning visitors (ids from a pool), a
 * browser User-Agent and a Referer. After the run the events in the store are counted: every 200 the server
 * sent must be a stored event.
 */
import { join } from "node:path";
import { cryptoIds } from "../../adapters/runtime/crypto.ts";
import { readCollectRequest } from "../../core/collect/collect.rules.ts";
import { describeCollectedEvent } from "../../core/collect/event.rules.ts";
import type { CollectedEvent } from "../../core/ports/events.store.ts";
import { identifyVisitor } from "../../core/visitors/visitor-id.rules.ts";
import { type Comparison, compareWithBare } from "../lib/measure.ts";
import { peakRssMbOf } from "../lib/proc.ts";
import { type CaseReport, comparisonTable, fmt, ms, summaryRowOf, type TargetCheck } from "../lib/report.ts";
import {
  type BareProcess,
  type BenchContext,
  drainBackground,
  type ServiceProcess,
  startService,
} from "../lib/servers.ts";
import { countEvents } from "../lib/store-count.ts";
import { roundRobinLua, type WrkScenario } from "../lib/wrk.ts";

export const browserUserAgent =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

/** Distinct requests wrk cycles through (each thread from its own offset). */
const requestCount = 2000;
/** Returning visitors: ids drawn from this many. */
const visitorPool = 20_000;

/** A deterministic stream of numbers, so every run sends the same requests. */
export function numbers(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
}

function visitorId(n: number): string {
  return `${((n * 2654435761) >>> 0).toString(16).padStart(8, "0")}${n.toString(16).padStart(8, "0")}0190f1e2d3c4b5a6`;
}

/** The requests of the GET case (wrk cycles through them): the pixel of a product page for a returning visitor. */
export function getScenarioRequests() {
  const next = numbers(1);
  return Array.from({ length: requestCount }, (_, index) => {
    const visitor = visitorId(next() % visitorPool);
    const product = 10_000 + (next() % 5000);
    const query = new URLSearchParams({
      svc_account: "acme",
      svc_profile: "main",
      svc_event: "page_view",
      svc_visitor_id: visitor,
      page_name: "Product detail",
      page_type: "product",
      page_url: `https://shop.example.com/p/${product}`,
      product_id: `SKU-${product}`,
      language: "en-US",
      screen: "1920x1080",
      cb: String(index),
    });
    return {
      method: "GET",
      path: `/event?${query}`,
      headers: { "User-Agent": browserUserAgent, Referer: `https://shop.example.com/p/${product}` },
    };
  });
}

/**
 * The stream of events the GET case's requests make (wrk's 2,000 requests in turn), as the collection
 * use-case describes them: for benchmarks of the background work without HTTP. `receivedAt` gives each
 * event's time from its place in the stream.
 */
export function getScenarioEvents(receivedAt: (index: number) => number): (index: number) => CollectedEvent {
  const requests = getScenarioRequests();
  return (index) => {
    const request = requests[index % requests.length] as (typeof requests)[number];
    const query = new URLSearchParams(request.path.slice(request.path.indexOf("?") + 1));
    const checked = readCollectRequest({
      method: "GET",
      query,
      body: null,
      referer: request.headers.Referer,
      isKnownProfile: () => true,
    });
    if (!checked.ok) throw new Error(`a bench request is refused: ${checked.error.code}`);
    const identity = identifyVisitor(
      {
        account: checked.value.account,
        profile: checked.value.profile,
        params: checked.value.params,
        cookieHeader: null,
      },
      cryptoIds,
    );
    return describeCollectedEvent(checked.value, identity, receivedAt(index));
  };
}

export function getScenario(): WrkScenario {
  const requests = getScenarioRequests();
  return { name: "collect-get", path: requests[0]!.path, lua: roundRobinLua(requests) };
}

/** A JSON event of exactly `bytes` bytes (the note pads it). */
export function postBody(visitor: string, product: number, bytes = 300): string {
  const event = {
    svc_account: "acme",
    svc_profile: "main",
    svc_event: "add_to_cart",
    svc_visitor_id: visitor,
    page_name: "Product detail",
    page_url: `https://shop.example.com/p/${product}`,
    product_id: `SKU-${product}`,
    product_price: 19.99,
    quantity: 1,
    currency: "EUR",
    note: "",
  };
  const padding = bytes - Buffer.byteLength(JSON.stringify(event));
  if (padding < 0) throw new Error(`the event is already longer than ${bytes} bytes`);
  return JSON.stringify({ ...event, note: "x".repeat(padding) });
}

export function postScenario(): WrkScenario {
  const next = numbers(2);
  const requests = Array.from({ length: requestCount }, () => {
    const product = 10_000 + (next() % 5000);
    return {
      method: "POST",
      path: "/event",
      headers: {
        "Content-Type": "application/json",
        "User-Agent": browserUserAgent,
        Origin: "https://shop.example.com",
      },
      body: postBody(visitorId(next() % visitorPool), product),
    };
  });
  return { name: "collect-post", path: "/event", lua: roundRobinLua(requests) };
}

interface CollectStats {
  accepted: number;
  commits?: { batches: number; committed: number; largestBatch: number };
}

/** The collection counters once they stop moving: requests wrk left in flight are answered by then. */
async function settledStats(service: ServiceProcess): Promise<CollectStats> {
  let previous = -1;
  for (let tries = 0; ; tries += 1) {
    const stats = (await (await service.admin("GET", "/admin/collect/stats")).json()) as CollectStats;
    if (stats.accepted === previous || tries >= 50) return stats;
    previous = stats.accepted;
    await Bun.sleep(300);
  }
}

export async function collectCase(ctx: BenchContext, bare: BareProcess, method: "GET" | "POST"): Promise<CaseReport> {
  const id = method === "GET" ? "get" : "post";
  const title = method === "GET" ? "1. GET /event (durable pixel)" : "2. POST /event (300-byte JSON, durable)";
  ctx.log(`${title}`);
  const dataDir = join(ctx.scratch, `collect-${id}`);
  const service = await startService(ctx, dataDir);
  let comparison: Comparison;
  let stats: CollectStats;
  let drain: Awaited<ReturnType<typeof drainBackground>>;
  let peakAfterDrain: number | null;
  try {
    comparison = await compareWithBare(ctx, service, bare, method === "GET" ? getScenario() : postScenario());
    ctx.log("  waiting for the background work (profile updates) the run left");
    drain = await drainBackground(service, ctx.quick ? 60_000 : 180_000);
    peakAfterDrain = peakRssMbOf(service.pid);
    stats = await settledStats(service);
  } finally {
    await service.stop();
  }
  const stored = await countEvents(dataDir);
  const { service: run } = comparison;
  const wrkOk = run.warmupOkAnswers + run.wrk.okAnswers;
  const inFlight = stats.accepted - wrkOk;
  const maxInFlight = 2 * ctx.wrk.connections;
  const durable = stored === stats.accepted && inFlight >= 0 && inFlight <= maxInFlight && run.wrk.errors.status === 0;
  ctx.log(
    `  stored events ${stored}, server 200s ${stats.accepted}, wrk 200s ${wrkOk}: ${durable ? "every 200 is stored" : "MISMATCH"}`,
  );

  const pending = drain.processed.profiles ?? 0;
  const details = [
    ...comparisonTable(comparison),
    "",
    `- Durability: the server answered ${fmt(stats.accepted)} requests with 200 (warm-up and run), wrk counted ${fmt(wrkOk)} of them ` +
      `(the other ${fmt(inFlight)} were in flight when wrk stopped; at most ${maxInFlight} can be), and the store holds ` +
      `${fmt(stored)} events after the server stopped: ${stored === stats.accepted ? "**every 200 is a stored event**" : "**they differ**"}.` +
      `${run.wrk.errors.status > 0 ? ` ${fmt(run.wrk.errors.status)} answers were 400 or above.` : ""}`,
    `- Group commit: ${fmt(stats.commits?.batches ?? null)} commits for ${fmt(stats.commits?.committed ?? null)} events ` +
      `(${fmt(stats.commits ? stats.commits.committed / Math.max(1, stats.commits.batches) : null, 1)} a commit on average, at most ${fmt(stats.commits?.largestBatch ?? null)}).`,
    `- Background work left when the load stopped: ${fmt(pending)} events still to apply to visitor profiles ` +
      `${pending < 1000 ? "(the profile worker, in the server's background thread, kept pace)" : ""}; POST /admin/wait ` +
      `${drain.complete ? `returned after ${drain.seconds.toFixed(1)} s` : `had not returned after ${drain.seconds.toFixed(0)} s`}. ` +
      `Peak RSS after that: ${peakAfterDrain === null ? "–" : `${Math.round(peakAfterDrain)} MB`}.`,
  ];
  const targets: TargetCheck[] = [];
  if (method === "GET") {
    targets.push(
      {
        goal: "Durable GET /event at least 50% of bare Bun.serve (64 connections)",
        met: comparison.ratio >= 0.5,
        found: `${(comparison.ratio * 100).toFixed(1)}%`,
      },
      {
        goal: "Durable GET /event p99 under 10 ms (64 connections)",
        met: run.wrk.latencyMs.p99 < 10,
        found: ms(run.wrk.latencyMs.p99),
      },
    );
  }
  targets.push({
    goal: `${method} /event: every 200 is a stored event`,
    met: durable,
    found: `${fmt(stored)} stored, ${fmt(stats.accepted)} answered 200`,
  });
  return { id, title, outcome: "measured", rows: [summaryRowOf(title, comparison)], details, targets };
}
