/**
 * The bench script (bench/run.ts, `bun run bench`) without running the bench: what it reads from /proc and
 * from wrk, the requests it sends, the file it writes; and, where wrk is installed, a quick smoke run of the
 * cheapest case. Here rather than in bench/ so that `npm test` runs it.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { transparentGif } from "../adapters/http/collect.routes.ts";
import { gifBase64 } from "../bench/bare-server.ts";
import { getScenario, postBody, postScenario } from "../bench/cases/collect.ts";
import { ensureHey } from "../bench/lib/hey.ts";
import { cpuPercent, parseCpuTicks, parseStatusMb } from "../bench/lib/proc.ts";
import { type CaseReport, mergeResults, renderResults } from "../bench/lib/report.ts";
import { writeResultsSection } from "../bench/lib/results-section.ts";
import { ensureWrk, luaString, parseWrkOutput } from "../bench/lib/wrk.ts";
import { parseArgs } from "../bench/run.ts";

const root = resolve(import.meta.dir, "..");

describe("bench: reading the machine", () => {
  test("CPU ticks are utime + stime, counted from the last parenthesis of a /proc/<pid>/stat line", () => {
    const line =
      "4237 (bun (main) x) S 1 4237 4237 0 -1 4194560 31250 0 0 0 812 122 0 0 20 0 7 0 300 6712788 34000 18446744073709551615";
    expect(parseCpuTicks(line)).toBe(934);
    expect(() => parseCpuTicks("garbage")).toThrow();
    expect(cpuPercent(150, 3)).toBeCloseTo(50);
  });

  test("peak and current RSS come from VmHWM and VmRSS of /proc/<pid>/status, in MiB", () => {
    const status = "Name:\tbun\nVmPeak:\t 6712788 kB\nVmHWM:\t  307200 kB\nVmRSS:\t  137752 kB\n";
    expect(parseStatusMb(status, "VmHWM")).toBe(300);
    expect(parseStatusMb(status, "VmRSS")).toBeCloseTo(134.5, 1);
    expect(parseStatusMb("Name:\tzombie\n", "VmHWM")).toBeNull();
  });
});

describe("bench: wrk", () => {
  test("the BENCH_JSON line of the done hook becomes requests per second, latencies in ms and wrk's CPU", () => {
    const output = [
      "Running 3s test @ http://127.0.0.1:43707/",
      "Requests/sec:  61636.10",
      'BENCH_JSON {"requests":185411,"durationUs":3008156,"errors":{"connect":0,"read":1,"write":0,"status":12,"timeout":0},"latencyUs":{"p50":855,"p90":1983,"p99":18259,"max":75477,"mean":1577.3},"cpuTicks":159}',
    ].join("\n");
    const result = parseWrkOutput(output);
    expect(result.requests).toBe(185_411);
    expect(result.requestsPerSecond).toBeCloseTo(185_411 / 3.008156, 3);
    expect(result.okAnswers).toBe(185_399);
    expect(result.latencyMs).toEqual({ p50: 0.855, p90: 1.983, p99: 18.259, max: 75.477, mean: 1.577 });
    expect(result.wrkCpuPercent).toBeCloseTo((1.59 / 3.008156) * 100, 3);
    expect(() => parseWrkOutput("Requests/sec: 1\n")).toThrow(/BENCH_JSON/);
  });

  test("Lua strings escape quotes and backslashes, and refuse what is not printable ASCII", () => {
    expect(luaString('a"b\\c\n')).toBe('"a\\"b\\\\c\\n"');
    expect(() => luaString("é")).toThrow();
  });

  test("the collection loads are what the issue asks: a typical pixel query and a 300-byte JSON body", () => {
    const get = getScenario();
    expect(get.path).toStartWith("/event?svc_account=acme&svc_profile=main&svc_event=page_view&svc_visitor_id=");
    expect(get.lua).toContain("request = function()");
    const body = postBody("0190f1e2d3c4", 12345);
    expect(Buffer.byteLength(body)).toBe(300);
    expect(JSON.parse(body)).toMatchObject({
      svc_account: "acme",
      svc_event: "add_to_cart",
      svc_visitor_id: "0190f1e2d3c4",
    });
    expect(postScenario().lua).toContain('"Content-Type"');
  });

  test("the bare server answers the very GIF of GET /event", async () => {
    expect(Buffer.from(gifBase64, "base64")).toEqual(Buffer.from(await transparentGif.arrayBuffer()));
  });
});

describe("bench: arguments and the results file", () => {
  test("--quick, --only and --out are read; an unknown case or argument is refused", () => {
    expect(parseArgs(["--quick", "--only", "get", "--only", "moments", "--out", "x.md"], {})).toMatchObject({
      quick: true,
      only: ["get", "moments"],
      out: resolve("x.md"),
    });
    // Through npm, from the folder the command was typed in, not the project's.
    expect(parseArgs(["--out", "x.md", "--json", "x.json"], { INIT_CWD: "/tmp/typed-here" })).toMatchObject({
      out: "/tmp/typed-here/x.md",
      json: "/tmp/typed-here/x.json",
    });
    expect(() => parseArgs(["--only", "nope"])).toThrow(/--only takes one of/);
    expect(() => parseArgs(["--fast"])).toThrow(/unknown argument/);
  });

  const info = {
    date: "2026-11-21T06:00:00Z",
    command: "bun run bench",
    machine: "2 cores",
    software: "Bun",
    commit: "abc",
    settings: "wrk -t2 -c64",
    quick: false,
    seconds: 300,
  };
  const cases: CaseReport[] = [
    {
      id: "get",
      title: "1. GET /event (durable pixel)",
      outcome: "measured",
      rows: [
        {
          label: "1. GET /event",
          rate: 12_345.6,
          unit: "req/s",
          p50Ms: 3.2,
          p99Ms: 12.5,
          bareRate: 60_000,
          ratio: 0.2058,
          serverCpuPercent: 98,
          serverPeakRssMb: 140,
          loadCpuPercent: 45,
        },
        {
          label: "1. GET /event, closed loop",
          rate: 7000,
          unit: "req/s",
          p50Ms: 4,
          p99Ms: 30,
          bareRate: null,
          ratio: null,
          serverCpuPercent: 120,
          serverPeakRssMb: 200,
          loadCpuPercent: 40,
          ceiling: { rate: 10_000, p99Ms: 20, ratio: { of: "req/s", value: 0.7 } },
        },
        {
          label: "1. GET /event, open loop at 1,000 req/s",
          rate: 998,
          unit: "req/s",
          p50Ms: 5,
          p99Ms: 21.8,
          bareRate: null,
          ratio: null,
          serverCpuPercent: 30,
          serverPeakRssMb: 200,
          loadCpuPercent: null,
          ceiling: { rate: 1000, p99Ms: 10.5, ratio: { of: "p99", value: 21.8 / 10.5 } },
        },
      ],
      details: ["- Durability: fine."],
      targets: [{ goal: "p99 under 10 ms", met: false, found: "12.5 ms" }],
    },
    {
      id: "import",
      title: "4. File import",
      outcome: "not available",
      rows: [],
      details: ["No file import."],
      targets: [{ goal: "50,000 rows/s", met: null, found: "–" }],
    },
  ];

  test("RESULTS.md states the date, machine and command, each case with its ratio to bare, and each target met or not", () => {
    const text = renderResults(info, cases, {
      method: ["- wrk"],
      history: "## Where the time goes, and what was fixed\n\nNotes.",
    });
    expect(text).toContain("| Date | 2026-11-21T06:00:00Z |");
    expect(text).toContain("| Machine | 2 cores |");
    expect(text).toContain("| Command | `bun run bench` |");
    expect(text).toContain(
      "| 1. GET /event | 12,346 req/s | 3.20 ms | 12.5 ms | 60,000 req/s | 20.6% | – | – | 98% | 140 MB | 45% |",
    );
    // Issue 44: a collection row measured against the durable ceiling shows both sides and the ratio.
    expect(text).toContain(
      "| 1. GET /event, closed loop | 7,000 req/s | 4.00 ms | 30.0 ms | – | – | 10,000 req/s, p99 20.0 ms | 0.70× | 120% | 200 MB | 40% |",
    );
    expect(text).toContain(
      "| 1. GET /event, open loop at 1,000 req/s | 998 req/s | 5.00 ms | 21.8 ms | – | – | 1,000 req/s, p99 10.5 ms | p99 2.08× |",
    );
    expect(text).toContain("| p99 under 10 ms | 12.5 ms | **not met** |");
    expect(text).toContain("| 50,000 rows/s | – | not measured |");
    expect(text).toContain("**not available.**");
  });

  test("a new run replaces its own sections and keeps those other scripts wrote (bench/import-memory.ts)", () => {
    const old =
      "# Benchmark results\n\n## Summary\n\nold numbers\n\n## 1. GET /event (durable pixel)\n\nold\n\n## file import\n\n| Rows |\n|---|\n";
    const merged = mergeResults("# svc-hub benchmarks\n\n## Summary\n\nnew numbers\n", old);
    expect(merged).toContain("new numbers");
    expect(merged).not.toContain("old numbers");
    expect(merged).not.toContain("\nold\n");
    expect(merged).toEndWith("## file import\n\n| Rows |\n|---|\n");
  });

  test("a script's own section (bench/console-load.ts) replaces its old one, a blank line before the next", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-bench-section-"));
    try {
      const path = join(dir, "RESULTS.md");
      writeFileSync(path, "# Results\n\n## Console load\n\nold\n\n## API reference renderers\n\nkept\n");
      writeResultsSection("## Console load", "## Console load\n\nnew\n", path);
      expect(readFileSync(path, "utf8")).toBe(
        "# Results\n\n## Console load\n\nnew\n\n## API reference renderers\n\nkept\n",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("bench: a quick run", () => {
  // As the bench itself does: wrk and hey come from Debian and are installed when missing.
  beforeAll(() => {
    ensureWrk((line) => process.stdout.write(`${line}\n`));
    ensureHey((line) => process.stdout.write(`${line}\n`));
  });

  test("`bun bench/run.ts --quick --only get` measures GET /event against the ceiling and the bare server and finds every 200 stored", () => {
    const scratch = mkdtempSync(join(tmpdir(), "svc-hub-bench-test-"));
    try {
      const out = join(scratch, "results.md");
      const json = join(scratch, "results.json");
      const run = spawnSync(
        join(root, "node_modules", ".bin", "bun"),
        [join(root, "bench", "run.ts"), "--quick", "--only", "get", "--out", out, "--json", json],
        {
          cwd: root,
          encoding: "utf8",
          timeout: 120_000,
        },
      );
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      const { cases } = JSON.parse(readFileSync(json, "utf8")) as { cases: CaseReport[] };
      expect(cases.map((entry) => [entry.id, entry.outcome])).toEqual([["get", "measured"]]);
      const row = cases[0]!.rows[0]!;
      expect(row.rate).toBeGreaterThan(0);
      expect(row.bareRate).toBeGreaterThan(0);
      expect(cases[0]!.targets.find((target) => target.goal.includes("every 200 is a stored event"))?.met).toBe(true);
      // Issue 44: against the bare server at wrk's settings, against the durable ceiling closed loop at wrk -t1 and
      // open loop at two fixed rates; the profiles' pace and the memory are reported.
      expect(cases[0]!.rows.map((entry) => entry.label)).toEqual([
        "1. GET /event (durable pixel), wrk -t2 -c64",
        "1. GET /event (durable pixel), wrk -t1 -c64, closed loop (1 round)",
        "1. GET /event (durable pixel), open loop at 1,000 req/s (hey -c32)",
        "1. GET /event (durable pixel), open loop at 4,000 req/s (hey -c32)",
      ]);
      expect(cases[0]!.rows[1]!.ceiling?.rate).toBeGreaterThan(0);
      const goals = cases[0]!.targets.map((target) => target.goal);
      expect(goals).toContain(
        "GET /event closed loop (wrk -t1 -c64, alternated): svc-hub at least 70% of the durable ceiling's req/s",
      );
      expect(goals).toContain(
        "GET /event open loop at 4,000 req/s (hey -c32): rate kept, svc-hub's p99 at most 2× the ceiling's",
      );
      expect(goals).toContain("GET /event: every event applied to its profile within 1 s after the load stops");
      expect(cases[0]!.details.join("\n")).toMatch(/Profile lag .*: peak \d/);
      expect(readFileSync(out, "utf8")).toContain("## 1. GET /event (durable pixel)");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 130_000);
});
