/**
 * Issue 44, "The bench measures against the ceiling": the pure parts of that comparison, without running it. hey's
 * summary read into figures, the rate asked of hey, the ratios and the verdict of each target (svc-hub at least
 * 70% of the durable ceiling closed loop; both open-loop rates kept with p99 at most 1.5 and 2 times the ceiling's).
 * Here rather than in bench/ so that `npm test` runs it, as tools/bench-script.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { ceilingTargets, closedLoopVerdict, openLoopVerdict, rateKept, ratioOf } from "../bench/lib/ceiling-targets.ts";
import { capacityFor, microsPerEvent, splitNodeCost } from "../bench/lib/event-cost.ts";
import { heyArgs, parseHeyOutput } from "../bench/lib/hey.ts";

const heySummary = `
Summary:
  Total:	10.0206 secs
  Slowest:	0.0985 secs
  Fastest:	0.0003 secs
  Average:	0.0058 secs
  Requests/sec:	995.1277
  
  Total data:	428797 bytes
  Size/request:	43 bytes

Response time histogram:
  0.000 [1]	|
  0.010 [2490]	|■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■■

Latency distribution:
  10% in 0.0013 secs
  25% in 0.0018 secs
  50% in 0.0029 secs
  75% in 0.0051 secs
  90% in 0.0121 secs
  95% in 0.0147 secs
  99% in 0.0795 secs

Details (average, fastest, slowest):
  DNS+dialup:	0.0001 secs, 0.0003 secs, 0.0985 secs
  resp wait:	0.0054 secs, 0.0001 secs, 0.0983 secs

Status code distribution:
  [200]	9961 responses
  [503]	11 responses

Error distribution:
  [3]	Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused
  [2]	Get "http://127.0.0.1:1/": context deadline exceeded
`;

describe("bench: hey, the open-loop load", () => {
  test("the summary becomes the rate reached, the latency percentiles in ms, the answers by status and the errors", () => {
    const result = parseHeyOutput(heySummary);
    expect(result.seconds).toBeCloseTo(10.0206, 4);
    expect(result.requestsPerSecond).toBeCloseTo(995.1277, 4);
    expect(result.latencyMs).toEqual({ p50: 2.9, p90: 12.1, p99: 79.5, mean: 5.8, max: 98.5 });
    expect(result.statusCounts).toEqual({ 200: 9961, 503: 11 });
    expect(result.okAnswers).toBe(9961);
    expect(result.refused).toBe(11);
    expect(result.errors).toBe(5);
    expect(() => parseHeyOutput("flag needs an argument: -h\n")).toThrow(/hey printed no summary/);
  });

  test("a rate is asked as hey's rate per worker: 32 workers, the total divided between them", () => {
    const args = heyArgs({ rate: 1000, connections: 32, seconds: 10 });
    expect(args).toEqual(["-z", "10s", "-c", "32", "-q", "31.25", "-t", "10"]);
    expect(heyArgs({ rate: 4000, connections: 32, seconds: 3 })).toContain("125");
  });
});

describe("bench: svc-hub against the durable ceiling (issue 44's targets)", () => {
  test("a ratio is svc-hub's figure over the ceiling's, and nothing when the ceiling measured nothing", () => {
    expect(ratioOf(4343, 9368)).toBeCloseTo(0.4636, 4);
    expect(ratioOf(10, 0)).toBeNull();
    expect(ratioOf(null, 10)).toBeNull();
  });

  test("closed loop: met at 70% of the ceiling's requests a second, over every round alternated", () => {
    // 2026-12-01 (issue 44): 0.42 and 0.44 of the ceiling.
    const measured = closedLoopVerdict([
      { ceiling: 9368, service: 3935 },
      { ceiling: 16_905, service: 7438 },
    ]);
    expect(measured.ratios.map((value) => Number(value?.toFixed(2)))).toEqual([0.42, 0.44]);
    expect(measured.ratio).toBeCloseTo((3935 + 7438) / (9368 + 16_905), 6);
    expect(measured.met).toBe(false);
    expect(closedLoopVerdict([{ ceiling: 10_000, service: 7000 }]).met).toBe(true);
    expect(closedLoopVerdict([{ ceiling: 10_000, service: 6999 }]).met).toBe(false);
    expect(closedLoopVerdict([]).met).toBeNull();
    expect(ceilingTargets.closedLoopRatio).toBe(0.7);
  });

  test("a rate is kept when at least 95% of it was reached", () => {
    expect(rateKept(1000, 995)).toBe(true);
    expect(rateKept(1000, 950)).toBe(true);
    expect(rateKept(4000, 3747)).toBe(false);
    expect(rateKept(4000, 2600)).toBe(false);
  });

  test("open loop: met when svc-hub keeps the rate and its p99 is within the factor of the ceiling's", () => {
    const at1000 = ceilingTargets.openLoop[0];
    const at4000 = ceilingTargets.openLoop[1];
    expect(at1000).toEqual({ rate: 1000, p99Factor: 1.5 });
    expect(at4000).toEqual({ rate: 4000, p99Factor: 2 });
    // Issue 44's quiet runs at 1,000 a second: 2.1 times the ceiling's p99, not met.
    const quiet = openLoopVerdict(at1000, { rate: 1000, p99Ms: 10.5 }, { rate: 998, p99Ms: 21.8 });
    expect(quiet.p99Ratio).toBeCloseTo(2.076, 3);
    expect(quiet).toMatchObject({ ceilingKept: true, serviceKept: true, met: false });
    expect(openLoopVerdict(at1000, { rate: 1000, p99Ms: 10 }, { rate: 1000, p99Ms: 15 }).met).toBe(true);
    // The busy run at 4,000: svc-hub could not keep the rate, whatever its p99.
    const busy = openLoopVerdict(at4000, { rate: 3747, p99Ms: 19.5 }, { rate: 2600, p99Ms: 20 });
    expect(busy).toMatchObject({ ceilingKept: false, serviceKept: false, met: false });
    expect(openLoopVerdict(at4000, { rate: 4000, p99Ms: 0 }, { rate: 4000, p99Ms: 3 }).met).toBeNull();
  });
});

describe("bench: the CPU an event costs, and what a rate needs (docs/scaling.md)", () => {
  test("microseconds an event are CPU ticks (1/100 s) over the events stored", () => {
    expect(microsPerEvent(150, 10_000)).toBeCloseTo(150, 6);
    expect(microsPerEvent(150, 0)).toBeNull();
  });

  test("of two nodes, the cheaper one only collects; the other's excess over every event is the fold", () => {
    // 5,000 events each; the collector spent 0.5 s (100 µs an event), the lease holder 1.5 s.
    const split = splitNodeCost([
      { ticks: 150, events: 5000 },
      { ticks: 50, events: 5000 },
    ]);
    expect(split?.collect).toBeCloseTo(100, 6);
    expect(split?.fold).toBeCloseTo((1.5e6 - 100 * 5000) / 10_000, 6);
    expect(
      splitNodeCost([
        { ticks: 1, events: 0 },
        { ticks: 1, events: 1 },
      ]),
    ).toBeNull();
  });

  test("a rate needs its events' CPU in cores at 70% busy, the fold on one core, and disk a day", () => {
    const costs = { collectMicros: 140, foldMicros: 60, postgresMicros: 100, eventBytes: 600 };
    const at = capacityFor(10_000, costs);
    expect(at.nodeCores).toBeCloseTo(2, 6);
    expect(at.foldCores).toBeCloseTo(0.6, 6);
    expect(at.postgresCores).toBeCloseTo(10 / 7, 6);
    expect(at.gibPerDay).toBeCloseTo((10_000 * 600 * 86_400) / 1024 ** 3, 6);
    expect(capacityFor(100_000, costs).foldCores).toBeGreaterThan(1);
  });
});
