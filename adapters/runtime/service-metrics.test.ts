/**
 * Issue 41, "ready in a blink": prom-client is loaded by the first scrape (or once many observations wait), not
 * at start; what was observed before it counts in the scrape exactly as if it had been loaded all along.
 */
import { describe, expect, test } from "bun:test";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { ServiceMetrics, waitingObservationsBeforeLoad } from "./service-metrics.ts";

function seriesOf(text: string, name: string) {
  return parsePrometheusTextFormat(text).find((family) => family.name === name)?.metrics ?? [];
}

describe("service metrics", () => {
  test("nothing is loaded before the first scrape; it counts every request and commit observed before it", async () => {
    const metrics = new ServiceMetrics();
    metrics.observeRequest("GET", "/event", 200, 2);
    metrics.observeRequest("GET", "/event", 200, 3);
    metrics.observeRequest("POST", "/admin/reset", 503, 40);
    metrics.observeCommit(5, 1);
    expect(metrics.loaded).toBe(false);
    const text = await metrics.render();
    expect(metrics.loaded).toBe(true);
    expect(metrics.contentType).toStartWith("text/plain; version=0.0.4");
    const requests = seriesOf(text, "svc_hub_http_requests_total");
    expect(requests).toContainEqual({ labels: { method: "GET", route: "/event", status: "200" }, value: "2" });
    expect(requests).toContainEqual({ labels: { method: "POST", route: "/admin/reset", status: "503" }, value: "1" });
    expect(text).toContain('svc_hub_http_request_duration_seconds_sum{method="GET",route="/event"} 0.005');
    expect(text).toContain('svc_hub_http_request_duration_seconds_count{method="GET",route="/event"} 2');
    expect(text).toContain("svc_hub_event_commit_batch_size_count 1");
    // Observed after the load: straight into the registry.
    metrics.observeRequest("GET", "/event", 200, 1);
    expect(seriesOf(await metrics.render(), "svc_hub_http_requests_total")).toContainEqual({
      labels: { method: "GET", route: "/event", status: "200" },
      value: "3",
    });
  });

  test("a service never scraped loads it once enough observations wait, and keeps none of them twice", async () => {
    const metrics = new ServiceMetrics();
    for (let index = 0; index < waitingObservationsBeforeLoad; index += 1) metrics.observeRequest("GET", "/x", 200, 1);
    await metrics.whenLoaded();
    expect(metrics.loaded).toBe(true);
    expect(seriesOf(await metrics.render(), "svc_hub_http_requests_total")).toContainEqual({
      labels: { method: "GET", route: "/x", status: "200" },
      value: String(waitingObservationsBeforeLoad),
    });
  });
});
