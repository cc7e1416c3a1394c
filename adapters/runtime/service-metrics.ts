import type { CollectCommitsView, CollectStatsView } from "../../core/collect/index.ts";
import type { WorkerBacklog } from "../../core/ports/index.ts";
import type { PrometheusMetrics } from "./prometheus-metrics.ts";

/** What the metrics read at each scrape: counters the service keeps anyway, so the hot path does no more work. */
export interface MetricSources {
  /** This process's collection counters (CollectService.stats), not the cluster's. */
  readonly collect: () => CollectStatsView;
  /** This process's group commits (CollectService.commitStats): the commit queue's depth among them. */
  readonly commits: () => CollectCommitsView;
  /** Requests being answered now (RequestGate). */
  readonly requestsInFlight: () => number;
  /** Live feeds open (GET /admin/events/live). */
  readonly liveFeeds: () => number;
  /** How far each background worker is behind (WorkScheduler.backlog). */
  readonly backlog: () => Promise<readonly WorkerBacklog[]>;
}

/** The route label of a request no route matched: one value, whatever the path (bounded cardinality). */
export const unmatchedRoute = "unmatched";

/**
 * How many observations wait for prom-client before it is loaded without a scrape: a service that is never
 * scraped keeps at most this many (a few hundred KB), then counts into the registry like any other.
 */
export const waitingObservationsBeforeLoad = 4096;

/** A request (method, route, status, ms) or a group commit (events, ms), observed before prom-client is loaded. */
type Observation =
  | readonly [kind: "request", method: string, route: string, status: number, ms: number]
  | readonly [kind: "commit", events: number, ms: number];

/**
 * The service's metrics (GET /metrics, issue 33), in Prometheus' text format by prom-client (PrometheusMetrics).
 * prom-client is loaded by the first scrape, not at start (issue 41, ready in a blink): until then what the
 * requests and commits observe waits here, up to `waitingObservationsBeforeLoad`, and is counted into the
 * registry when it arrives, exactly as if it had been there from the start.
 */
export class ServiceMetrics {
  /** The text exposition format, version 0.0.4 (prom-client's registry answers it). */
  readonly contentType = "text/plain; version=0.0.4; charset=utf-8";
  private prometheus: PrometheusMetrics | null = null;
  private loading: Promise<PrometheusMetrics> | null = null;
  private waiting: Observation[] = [];
  private sources: MetricSources | null = null;

  /** The counters read at each scrape, once the service that keeps them is built. */
  readFrom(sources: MetricSources): void {
    this.sources = sources;
    this.prometheus?.readFrom(sources);
  }

  /** One answered request: its route template (never the raw path), its status and its duration. */
  observeRequest(method: string, route: string, status: number, ms: number): void {
    if (this.prometheus) this.prometheus.observeRequest(method, route, status, ms);
    else this.wait(["request", method, route, status, ms]);
  }

  /** One group commit of collected events that succeeded (CollectService's observeCommit). */
  observeCommit(events: number, ms: number): void {
    if (this.prometheus) this.prometheus.observeCommit(events, ms);
    else this.wait(["commit", events, ms]);
  }

  async render(): Promise<string> {
    return (await this.load()).render();
  }

  /** Whether prom-client is loaded (for tests). */
  get loaded(): boolean {
    return this.prometheus !== null;
  }

  /** Resolves once prom-client is loaded, if its load has begun (for tests). */
  async whenLoaded(): Promise<void> {
    await this.loading;
  }

  private wait(observation: Observation): void {
    this.waiting.push(observation);
    if (this.waiting.length >= waitingObservationsBeforeLoad) void this.load().catch(() => undefined);
  }

  private load(): Promise<PrometheusMetrics> {
    this.loading ??= import("./prometheus-metrics.ts").then(
      ({ PrometheusMetrics }) => {
        const prometheus = new PrometheusMetrics();
        if (this.sources) prometheus.readFrom(this.sources);
        for (const observation of this.waiting) {
          if (observation[0] === "request") {
            const [, method, route, status, ms] = observation;
            prometheus.observeRequest(method, route, status, ms);
          } else prometheus.observeCommit(observation[1], observation[2]);
        }
        this.waiting = [];
        this.prometheus = prometheus;
        return prometheus;
      },
      (error: unknown) => {
        // Tried again at the next scrape.
        this.loading = null;
        throw error;
      },
    );
    return this.loading;
  }
}
