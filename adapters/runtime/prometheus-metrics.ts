import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { WorkerBacklog } from "../../core/ports/index.ts";
import type { MetricSources } from "./service-metrics.ts";

/** Seconds: from a fraction of a millisecond (a moments lookup from memory) to a slow upload. */
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Events a group commit: up to GroupCommitWriter's largest batch (1000). */
const batchSizeBuckets = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
const commitBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/**
 * The service's metrics in Prometheus' text format (GET /metrics, issue 33), in a registry of its own per
 * service (prom-client's global registry would mix the services of a test process). Counters of collection
 * are read from CollectStats at each scrape; requests and group commits are observed as they end, once each.
 * Loaded by ServiceMetrics when first needed.
 */
export class PrometheusMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly latency: Histogram<"method" | "route">;
  private readonly batchSizes: Histogram;
  private readonly commitSeconds: Histogram;
  private sources: MetricSources | null = null;
  /** The background workers as the scrape in progress found them: one look a scrape, for two gauges. */
  private backlog: readonly WorkerBacklog[] = [];

  constructor() {
    const registers = [this.registry];
    const read = () => this.sources;
    this.requests = new Counter({
      name: "svc_hub_http_requests_total",
      help: "Requests answered, by method, route template and status.",
      labelNames: ["method", "route", "status"] as const,
      registers,
    });
    this.latency = new Histogram({
      name: "svc_hub_http_request_duration_seconds",
      help: "Time to answer a request, by method and route template.",
      labelNames: ["method", "route"] as const,
      buckets: latencyBuckets,
      registers,
    });
    this.batchSizes = new Histogram({
      name: "svc_hub_event_commit_batch_size",
      help: "Events per group commit of the collection endpoint.",
      buckets: batchSizeBuckets,
      registers,
    });
    this.commitSeconds = new Histogram({
      name: "svc_hub_event_commit_duration_seconds",
      help: "Time a group commit of collected events took.",
      buckets: commitBuckets,
      registers,
    });
    new Counter({
      name: "svc_hub_events_accepted_total",
      help: "Events the collection endpoint accepted and stored.",
      registers,
      collect() {
        const sources = read();
        if (sources) setCount(this, sources.collect().accepted);
      },
    });
    new Counter({
      name: "svc_hub_events_filtered_bots_total",
      help: "Requests of crawlers answered as a success and not stored (DEC-COL-06).",
      registers,
      collect() {
        const sources = read();
        if (sources) setCount(this, sources.collect().filteredBots);
      },
    });
    new Counter({
      name: "svc_hub_events_refused_total",
      help: "Requests the collection endpoint refused, by reason (the X-Error's catalogue code).",
      labelNames: ["reason"] as const,
      registers,
      collect() {
        const sources = read();
        if (!sources) return;
        this.reset();
        for (const [reason, count] of Object.entries(sources.collect().rejected)) this.inc({ reason }, count);
      },
    });
    new Counter({
      name: "svc_hub_event_commit_batches_total",
      help: "Group commits of collected events, by outcome.",
      labelNames: ["outcome"] as const,
      registers,
      collect() {
        const sources = read();
        if (!sources) return;
        const commits = sources.commits();
        this.reset();
        this.inc({ outcome: "committed" }, commits.batches - commits.failedBatches);
        this.inc({ outcome: "failed" }, commits.failedBatches);
      },
    });
    new Gauge({
      name: "svc_hub_event_commit_queue_depth",
      help: "Collected events waiting for their group commit.",
      registers,
      collect() {
        const sources = read();
        if (sources) this.set(sources.commits().pending);
      },
    });
    new Gauge({
      name: "svc_hub_http_requests_in_flight",
      help: "Requests being answered now.",
      registers,
      collect() {
        const sources = read();
        if (sources) this.set(sources.requestsInFlight());
      },
    });
    const backlog = () => this.backlog;
    new Gauge({
      name: "svc_hub_background_overdue_seconds",
      help: "Virtual time each background worker's soonest due item has waited past its due time (0: caught up).",
      labelNames: ["worker"] as const,
      registers,
      collect() {
        this.reset();
        for (const { worker, overdueMs } of backlog()) this.set({ worker }, overdueMs / 1000);
      },
    });
    new Gauge({
      name: "svc_hub_background_worker_failing",
      help: "1 while a background worker's last pass failed (it waits out a backoff), else 0.",
      labelNames: ["worker"] as const,
      registers,
      collect() {
        this.reset();
        for (const { worker, failing } of backlog()) this.set({ worker }, failing ? 1 : 0);
      },
    });
    new Gauge({
      name: "svc_hub_live_feeds_open",
      help: "Live feeds of collected events open (GET /admin/events/live).",
      registers,
      collect() {
        const sources = read();
        if (sources) this.set(sources.liveFeeds());
      },
    });
  }

  /** The counters read at each scrape, once the service that keeps them is built. */
  readFrom(sources: MetricSources): void {
    this.sources = sources;
  }

  /** One answered request: its route template (never the raw path), its status and its duration. */
  observeRequest(method: string, route: string, status: number, ms: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, ms / 1000);
  }

  /** One group commit of collected events that succeeded (CollectService's observeCommit). */
  observeCommit(events: number, ms: number): void {
    this.batchSizes.observe(events);
    this.commitSeconds.observe(ms / 1000);
  }

  /** The text exposition format, version 0.0.4. */
  get contentType(): string {
    return this.registry.contentType;
  }

  async render(): Promise<string> {
    this.backlog = this.sources ? await this.sources.backlog() : [];
    return this.registry.metrics();
  }
}

/** A counter read from a count kept elsewhere (which may go back to zero: POST /admin/reset, a counter reset). */
function setCount(counter: Counter, count: number): void {
  counter.reset();
  counter.inc(count);
}
