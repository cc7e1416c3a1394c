/**
 * Cases 1 and 2: the collection endpoint, durable (a 200 only once the event is committed, synchronous=FULL).
 * GET: the pixel with a typical query, at wrk -t2 -c64 and -t1 -c64; POST: a 300-byte JSON body. Returning
 * visitors (ids from a pool), a browser User-Agent and a Referer. After the run the events in the store are
 * counted: every 200 the server sent must be a stored event. The profile lag is sampled during the load and
 * the time profiles take to catch up after it is measured (issue 29's targets).
 */
import { join } from "node:path";
import { cryptoIds } from "../../adapters/runtime/crypto.ts";
import { describeCollectedEvent, readCollectRequest } from "../../core/collect/index.ts";
import type { CollectedEvent } from "../../core/ports/index.ts";
import { identifyVisitor } from "../../core/visitors/index.ts";
import { type Comparison, compareWithBare } from "../lib/measure.ts";
import { peakRssMbOf } from "../lib/proc.ts";
import { sampleProfileLag } from "../lib/profile-lag.ts";
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

/** Issue 29's targets: durable collection against the bare server, its p99, the profiles' pace, the memory. */
export const collectTargets = {
  getRatio: 0.3,
  postRatio: 0.25,
  p99Ms: 10,
  profilesCaughtUpSeconds: 1,
  peakRssMb: 250,
} as const;

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
    const identity = identifyVisitor(checked.value.visitor, cryptoIds);
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
  const scenario = method === "GET" ? getScenario() : postScenario();
  // GET is measured with wrk's two threads and with one (issue 29 asks for both); the second run's bare server
  // is measured again with the same single thread.
  const oneThread = { ...ctx, wrk: { ...ctx.wrk, threads: 1 } };
  const comparisons: Array<{ settings: string; comparison: Comparison }> = [];
  let stats: CollectStats;
  let drain: Awaited<ReturnType<typeof drainBackground>>;
  let lag: { peakMs: number | null; samples: number };
  let peakAfterDrain: number | null;
  try {
    const sampler = sampleProfileLag(service);
    try {
      comparisons.push({ settings: wrkLabel(ctx), comparison: await compareWithBare(ctx, service, bare, scenario) });
      if (method === "GET" && ctx.wrk.threads !== 1)
        comparisons.push({
          settings: wrkLabel(oneThread),
          comparison: await compareWithBare(oneThread, service, bare, { ...scenario, name: `${scenario.name}-t1` }),
        });
    } finally {
      lag = await sampler.stop();
    }
    ctx.log("  waiting for the background work (profile updates) the run left");
    drain = await drainBackground(service, ctx.quick ? 60_000 : 180_000);
    peakAfterDrain = peakRssMbOf(service.pid);
    stats = await settledStats(service);
  } finally {
    await service.stop();
  }
  const stored = await countEvents(dataDir);
  const wrkOk = comparisons.reduce(
    (sum, { comparison }) => sum + comparison.service.warmupOkAnswers + comparison.service.wrk.okAnswers,
    0,
  );
  const refused = comparisons.reduce((sum, { comparison }) => sum + comparison.service.wrk.errors.status, 0);
  const inFlight = stats.accepted - wrkOk;
  const maxInFlight = 2 * ctx.wrk.connections * comparisons.length;
  const durable = stored === stats.accepted && inFlight >= 0 && inFlight <= maxInFlight && refused === 0;
  ctx.log(
    `  stored events ${stored}, server 200s ${stats.accepted}, wrk 200s ${wrkOk}: ${durable ? "every 200 is stored" : "MISMATCH"}`,
  );
  const peakRss = Math.max(...comparisons.map(({ comparison }) => comparison.service.serverPeakRssMb ?? 0));

  const pending = drain.processed.profiles ?? 0;
  const caughtUp = drain.complete && drain.seconds <= collectTargets.profilesCaughtUpSeconds;
  const details = [
    ...comparisons.flatMap(({ settings, comparison }) => [
      ...(comparisons.length > 1 ? [`At ${settings}:`, ""] : []),
      ...comparisonTable(comparison),
      "",
    ]),
    `- Durability: the server answered ${fmt(stats.accepted)} requests with 200 (warm-ups and runs), wrk counted ${fmt(wrkOk)} of them ` +
      `(the other ${fmt(inFlight)} were in flight when wrk stopped; at most ${maxInFlight} can be), and the store holds ` +
      `${fmt(stored)} events after the server stopped: ${stored === stats.accepted ? "**every 200 is a stored event**" : "**they differ**"}.` +
      `${refused > 0 ? ` ${fmt(refused)} answers were 400 or above.` : ""}`,
    `- Group commit: ${fmt(stats.commits?.batches ?? null)} commits for ${fmt(stats.commits?.committed ?? null)} events ` +
      `(${fmt(stats.commits ? stats.commits.committed / Math.max(1, stats.commits.batches) : null, 1)} a commit on average, at most ${fmt(stats.commits?.largestBatch ?? null)}).`,
    `- Profile lag (how long the oldest event not yet applied to its visitor's profile had waited, GET /metrics every 250 ms): ` +
      `peak ${lag.peakMs === null ? "not measured" : ms(lag.peakMs)} during the load (${fmt(lag.samples)} samples). When the load stopped, ` +
      `${fmt(pending)} events were still to apply; POST /admin/wait ` +
      `${drain.complete ? `returned after ${drain.seconds.toFixed(2)} s` : `had not returned after ${drain.seconds.toFixed(0)} s`}. ` +
      `Peak RSS after that: ${peakAfterDrain === null ? "–" : `${Math.round(peakAfterDrain)} MB`}.`,
  ];
  const targets: TargetCheck[] = [];
  const goalRatio = method === "GET" ? collectTargets.getRatio : collectTargets.postRatio;
  for (const { settings, comparison } of comparisons) {
    targets.push({
      goal: `Durable ${method} /event at least ${goalRatio * 100}% of bare Bun.serve (${settings})`,
      met: comparison.ratio >= goalRatio,
      found: `${(comparison.ratio * 100).toFixed(1)}%`,
    });
    if (method === "GET")
      targets.push({
        goal: `Durable GET /event p99 under ${collectTargets.p99Ms} ms (${settings})`,
        met: comparison.service.wrk.latencyMs.p99 < collectTargets.p99Ms,
        found: ms(comparison.service.wrk.latencyMs.p99),
      });
  }
  targets.push(
    {
      goal: `${method} /event: every 200 is a stored event`,
      met: durable,
      found: `${fmt(stored)} stored, ${fmt(stats.accepted)} answered 200`,
    },
    {
      goal: `${method} /event: every event applied to its profile within ${collectTargets.profilesCaughtUpSeconds} s after the load stops`,
      met: caughtUp,
      found: `${drain.complete ? `${drain.seconds.toFixed(2)} s` : "not caught up"} (peak lag during the load ${lag.peakMs === null ? "not measured" : ms(lag.peakMs)})`,
    },
    {
      goal: `${method} /event: server peak RSS under the load at most ${collectTargets.peakRssMb} MB`,
      met: peakRss > 0 ? peakRss <= collectTargets.peakRssMb : null,
      found: peakRss > 0 ? `${Math.round(peakRss)} MB` : "not measured",
    },
  );
  return {
    id,
    title,
    outcome: "measured",
    rows: comparisons.map(({ settings, comparison }) =>
      summaryRowOf(comparisons.length > 1 ? `${title}, ${settings}` : title, comparison),
    ),
    details,
    targets,
  };
}

function wrkLabel(ctx: BenchContext): string {
  return `wrk -t${ctx.wrk.threads} -c${ctx.wrk.connections}`;
}
