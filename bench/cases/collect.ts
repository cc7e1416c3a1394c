/**
 * Cases 1 and 2: the collection endpoint, durable (a 200 only once the event is committed, synchronous=FULL).
 * GET: the pixel with a typical query; POST: a 300-byte JSON body. Returning visitors (ids from a pool), a browser
 * User-Agent and a Referer. Measured against the durable ceiling (bench/ceiling.ts `durable`, issue 44) in the same
 * run: closed loop with wrk -t1 -c64, ceiling and svc-hub alternated round by round, then open loop with hey at
 * 1,000 and 4,000 requests a second, the ceiling first at each rate. Against the bare Bun.serve too, once, at the
 * run's wrk settings, for reference. After the run the events in the store are counted: every 200 the server sent
 * must be a stored event. The profile lag is sampled during the load and the time profiles take to catch up after
 * it is measured.
 */
import { join } from "node:path";
import { cryptoIds } from "../../adapters/runtime/crypto.ts";
import { describeCollectedEvent, readCollectRequest } from "../../core/collect/index.ts";
import type { CollectedEvent } from "../../core/ports/index.ts";
import { identifyVisitor } from "../../core/visitors/index.ts";
import { ceilingTargets, closedLoopVerdict, openLoopVerdict } from "../lib/ceiling-targets.ts";
import type { HeyRequest } from "../lib/hey.ts";
import {
  type Comparison,
  compareWithBare,
  type MeasuredRun,
  measure,
  measureOpen,
  type OpenLoopRun,
} from "../lib/measure.ts";
import { peakRssMbOf } from "../lib/proc.ts";
import { sampleProfileLag } from "../lib/profile-lag.ts";
import {
  type CaseReport,
  closedLoopTable,
  comparisonTable,
  fmt,
  mb,
  ms,
  openLoopTable,
  type SummaryRow,
  summaryRowOf,
  type TargetCheck,
  times,
} from "../lib/report.ts";
import {
  type BareProcess,
  type BenchContext,
  drainBackground,
  type ServiceProcess,
  startCeiling,
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

/** The open-loop load: hey's workers (the rate asked is divided between them) and each run's length. */
export const openLoop = { connections: 32, seconds: 10, quickSeconds: 3 } as const;

/** Closed-loop rounds (ceiling, svc-hub) alternated in a case. */
export const closedLoopRounds = { full: 2, quick: 1 } as const;

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

/** The requests of the POST case (wrk cycles through them): an add to cart of a returning visitor. */
export function postScenarioRequests() {
  const next = numbers(2);
  return Array.from({ length: requestCount }, () => {
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
}

export function postScenario(): WrkScenario {
  return { name: "collect-post", path: "/event", lua: roundRobinLua(postScenarioRequests()) };
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

/** The request hey sends again and again in the open loop: the closed loop's first one. */
export function openLoopRequest(method: "GET" | "POST"): HeyRequest {
  const first = (method === "GET" ? getScenarioRequests() : postScenarioRequests())[0];
  if (!first) throw new Error("no request to send");
  return { method, path: first.path, headers: first.headers, ...("body" in first ? { body: first.body } : {}) };
}

interface ClosedRound {
  readonly ceiling: MeasuredRun;
  readonly service: MeasuredRun;
}

interface OpenRate {
  readonly rate: number;
  readonly ceiling: OpenLoopRun;
  readonly service: OpenLoopRun;
}

export async function collectCase(ctx: BenchContext, bare: BareProcess, method: "GET" | "POST"): Promise<CaseReport> {
  const id = method === "GET" ? "get" : "post";
  const title = method === "GET" ? "1. GET /event (durable pixel)" : "2. POST /event (300-byte JSON, durable)";
  ctx.log(`${title}`);
  const dataDir = join(ctx.scratch, `collect-${id}`);
  const service = await startService(ctx, dataDir);
  const ceiling = await startCeiling(ctx, join(ctx.scratch, `ceiling-${id}.jsonl`)).catch(async (error) => {
    await service.stop();
    throw error;
  });
  const scenario = method === "GET" ? getScenario() : postScenario();
  const oneThread = { ...ctx, wrk: { ...ctx.wrk, threads: 1 } };
  const rounds: ClosedRound[] = [];
  const open: OpenRate[] = [];
  const openSeconds = ctx.quick ? openLoop.quickSeconds : openLoop.seconds;
  let comparison: Comparison;
  let stats: CollectStats;
  let drain: Awaited<ReturnType<typeof drainBackground>>;
  let lag: { peakMs: number | null; samples: number };
  let peakAfterDrain: number | null;
  try {
    const sampler = sampleProfileLag(service);
    try {
      comparison = await compareWithBare(ctx, service, bare, scenario);
      const roundCount = ctx.quick ? closedLoopRounds.quick : closedLoopRounds.full;
      for (let round = 1; round <= roundCount; round += 1) {
        ctx.log(`  closed loop, round ${round}: durable ceiling, then svc-hub (${wrkLabel(oneThread)})`);
        const ceilingRun = await measure(oneThread, ceiling, {
          ...scenario,
          name: `${scenario.name}-ceiling-${round}`,
        });
        const serviceRun = await measure(oneThread, service, { ...scenario, name: `${scenario.name}-t1-${round}` });
        ctx.log(
          `    ceiling ${Math.round(ceilingRun.wrk.requestsPerSecond)} req/s, svc-hub ${Math.round(serviceRun.wrk.requestsPerSecond)} req/s`,
        );
        rounds.push({ ceiling: ceilingRun, service: serviceRun });
      }
      const request = openLoopRequest(method);
      for (const { rate } of ceilingTargets.openLoop) {
        ctx.log(
          `  open loop, ${rate} req/s (hey -c${openLoop.connections}, ${openSeconds} s): durable ceiling, then svc-hub`,
        );
        const load = { rate, connections: openLoop.connections, seconds: openSeconds };
        const ceilingRun = await measureOpen(ceiling, request, load);
        const serviceRun = await measureOpen(service, request, load);
        ctx.log(
          `    ceiling ${Math.round(ceilingRun.hey.requestsPerSecond)} req/s p99 ${ceilingRun.hey.latencyMs.p99} ms, ` +
            `svc-hub ${Math.round(serviceRun.hey.requestsPerSecond)} req/s p99 ${serviceRun.hey.latencyMs.p99} ms`,
        );
        open.push({ rate, ceiling: ceilingRun, service: serviceRun });
      }
    } finally {
      lag = await sampler.stop();
    }
    ctx.log("  waiting for the background work (profile updates) the run left");
    drain = await drainBackground(service, ctx.quick ? 60_000 : 180_000);
    peakAfterDrain = peakRssMbOf(service.pid);
    stats = await settledStats(service);
  } finally {
    await service.stop();
    await ceiling.stop();
  }
  const stored = await countEvents(dataDir);
  const wrkRuns = [comparison.service, ...rounds.map((round) => round.service)];
  const clientOk =
    wrkRuns.reduce((sum, run) => sum + run.warmupOkAnswers + run.wrk.okAnswers, 0) +
    open.reduce((sum, run) => sum + run.service.hey.okAnswers, 0);
  const refused =
    wrkRuns.reduce((sum, run) => sum + run.wrk.errors.status, 0) +
    open.reduce((sum, run) => sum + run.service.hey.refused, 0);
  const inFlight = stats.accepted - clientOk;
  // A warm-up and a run of wrk can each leave every connection's request unread; so can each hey run.
  const maxInFlight = 2 * ctx.wrk.connections * wrkRuns.length + openLoop.connections * open.length;
  const durable = stored === stats.accepted && inFlight >= 0 && inFlight <= maxInFlight && refused === 0;
  ctx.log(
    `  stored events ${stored}, server 200s ${stats.accepted}, load generators' 200s ${clientOk}: ${durable ? "every 200 is stored" : "MISMATCH"}`,
  );
  const peakRss = Math.max(...[...wrkRuns, ...open.map((run) => run.service)].map((run) => run.serverPeakRssMb ?? 0));
  const ceilingPeakRss = Math.max(
    ...[...rounds.map((round) => round.ceiling), ...open.map((run) => run.ceiling)].map(
      (run) => run.serverPeakRssMb ?? 0,
    ),
  );

  const closed = closedLoopVerdict(
    rounds.map((round) => ({
      ceiling: round.ceiling.wrk.requestsPerSecond,
      service: round.service.wrk.requestsPerSecond,
    })),
  );
  const mean = (values: readonly number[]) =>
    values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const ceilingRate = mean(rounds.map((round) => round.ceiling.wrk.requestsPerSecond));
  const serviceRate = mean(rounds.map((round) => round.service.wrk.requestsPerSecond));
  const worst = (runs: readonly MeasuredRun[], pick: (run: MeasuredRun) => number) => Math.max(...runs.map(pick));
  const verdicts = open.map((run) => {
    const target = ceilingTargets.openLoop.find((entry) => entry.rate === run.rate) ?? ceilingTargets.openLoop[0];
    const side = (measured: OpenLoopRun) => ({
      rate: measured.hey.requestsPerSecond,
      p99Ms: measured.hey.latencyMs.p99,
    });
    return { run, target, verdict: openLoopVerdict(target, side(run.ceiling), side(run.service)) };
  });

  const pending = drain.processed.profiles ?? 0;
  const caughtUp = drain.complete && drain.seconds <= ceilingTargets.profilesCaughtUpSeconds;
  const details = [
    `Closed loop, ${wrkLabel(oneThread)}, ${ctx.wrk.warmupSeconds} s warm-up + ${ctx.wrk.seconds} s a run, the durable ceiling and svc-hub alternated:`,
    "",
    ...closedLoopTable(rounds),
    "",
    `Open loop, hey -c${openLoop.connections} at a fixed rate (each worker paced at the rate over ${openLoop.connections}), ${openSeconds} s a run, ` +
      `the ceiling first at each rate; the one request of the closed loop's list sent again and again (one visitor):`,
    "",
    ...openLoopTable(open),
    "",
    `Against the bare Bun.serve, ${wrkLabel(ctx)} (for reference: the ceiling is the reference of issue 44's targets):`,
    "",
    ...comparisonTable(comparison),
    "",
    `- Durability: the server answered ${fmt(stats.accepted)} requests with 200 (warm-ups and runs), the load generators counted ${fmt(clientOk)} of them ` +
      `(the other ${fmt(inFlight)} were in flight when a run stopped; at most ${maxInFlight} can be), and the store holds ` +
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
  const targets: TargetCheck[] = [
    {
      goal: `${method} /event closed loop (${wrkLabel(oneThread)}, alternated): svc-hub at least ${ceilingTargets.closedLoopRatio * 100}% of the durable ceiling's req/s`,
      met: closed.met,
      found:
        `${fmt(serviceRate)} against ${fmt(ceilingRate)} req/s: ${times(closed.ratio)}` +
        (rounds.length > 1 ? ` (rounds ${closed.ratios.map(times).join(", ")})` : ""),
    },
    ...verdicts.map(({ run, target, verdict }) => ({
      goal: `${method} /event open loop at ${fmt(run.rate)} req/s (hey -c${openLoop.connections}): rate kept, svc-hub's p99 at most ${target.p99Factor}× the ceiling's`,
      met: verdict.met,
      found:
        `svc-hub ${fmt(run.service.hey.requestsPerSecond)} req/s${verdict.serviceKept ? "" : " (rate not kept)"}, p99 ${ms(run.service.hey.latencyMs.p99)}; ` +
        `ceiling ${fmt(run.ceiling.hey.requestsPerSecond)} req/s${verdict.ceilingKept ? "" : " (rate not kept)"}, p99 ${ms(run.ceiling.hey.latencyMs.p99)}: ${times(verdict.p99Ratio)}`,
    })),
    {
      goal: `${method} /event: every 200 is a stored event`,
      met: durable,
      found: `${fmt(stored)} stored, ${fmt(stats.accepted)} answered 200`,
    },
    {
      goal: `${method} /event: every event applied to its profile within ${ceilingTargets.profilesCaughtUpSeconds} s after the load stops`,
      met: caughtUp,
      found: `${drain.complete ? `${drain.seconds.toFixed(2)} s` : "not caught up"} (peak lag during the load ${lag.peakMs === null ? "not measured" : ms(lag.peakMs)})`,
    },
    {
      goal: `${method} /event: server peak RSS under the load at most ${ceilingTargets.peakRssMb} MB`,
      met: peakRss > 0 ? peakRss <= ceilingTargets.peakRssMb : null,
      found: peakRss > 0 ? `${Math.round(peakRss)} MB (the ceiling's ${mb(ceilingPeakRss || null)})` : "not measured",
    },
  ];
  const rows: SummaryRow[] = [
    summaryRowOf(`${title}, ${wrkLabel(ctx)}`, comparison),
    {
      label: `${title}, ${wrkLabel(oneThread)}, closed loop (${rounds.length === 1 ? "1 round" : `mean of ${rounds.length} rounds`})`,
      rate: serviceRate,
      unit: "req/s",
      p50Ms: worst(
        rounds.map((round) => round.service),
        (run) => run.wrk.latencyMs.p50,
      ),
      p99Ms: worst(
        rounds.map((round) => round.service),
        (run) => run.wrk.latencyMs.p99,
      ),
      bareRate: null,
      ratio: null,
      serverCpuPercent: mean(rounds.map((round) => round.service.serverCpuPercent)),
      serverPeakRssMb:
        worst(
          rounds.map((round) => round.service),
          (run) => run.serverPeakRssMb ?? 0,
        ) || null,
      loadCpuPercent: mean(rounds.map((round) => round.service.wrk.wrkCpuPercent)),
      ceiling: {
        rate: ceilingRate,
        p99Ms: worst(
          rounds.map((round) => round.ceiling),
          (run) => run.wrk.latencyMs.p99,
        ),
        ratio: { of: "req/s", value: closed.ratio },
      },
    },
    ...verdicts.map(({ run, verdict }) => ({
      label: `${title}, open loop at ${fmt(run.rate)} req/s (hey -c${openLoop.connections})`,
      rate: run.service.hey.requestsPerSecond,
      unit: "req/s" as const,
      p50Ms: run.service.hey.latencyMs.p50,
      p99Ms: run.service.hey.latencyMs.p99,
      bareRate: null,
      ratio: null,
      serverCpuPercent: run.service.serverCpuPercent,
      serverPeakRssMb: run.service.serverPeakRssMb,
      loadCpuPercent: null,
      ceiling: {
        rate: run.ceiling.hey.requestsPerSecond,
        p99Ms: run.ceiling.hey.latencyMs.p99,
        ratio: { of: "p99" as const, value: verdict.p99Ratio },
      },
    })),
  ];
  return { id, title, outcome: "measured", rows, details, targets };
}

function wrkLabel(ctx: BenchContext): string {
  return `wrk -t${ctx.wrk.threads} -c${ctx.wrk.connections}`;
}
