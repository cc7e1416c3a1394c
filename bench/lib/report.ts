/**
 * What a case found, and bench/RESULTS.md made of it. Pure: the tests render made-up results.
 */
import type { Comparison, MeasuredRun, OpenLoopRun } from "./measure.ts";

/** A goal of the issue, and whether this run reached it (null: not measured in this run). */
export interface TargetCheck {
  readonly goal: string;
  readonly met: boolean | null;
  readonly found: string;
}

/** A line of the summary table. */
export interface SummaryRow {
  readonly label: string;
  /** Throughput in `unit` (req/s, or rows/s for the import). */
  readonly rate: number | null;
  readonly unit: "req/s" | "rows/s";
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly bareRate: number | null;
  readonly ratio: number | null;
  readonly serverCpuPercent: number | null;
  readonly serverPeakRssMb: number | null;
  readonly loadCpuPercent: number | null;
  /** The durable ceiling under the same load in the same run (the collection cases), and svc-hub's ratio to it. */
  readonly ceiling?: CeilingFigures;
}

export interface CeilingFigures {
  readonly rate: number;
  readonly p99Ms: number;
  /** svc-hub's requests a second over the ceiling's (closed loop), or its p99 over the ceiling's (open loop). */
  readonly ratio: { readonly of: "req/s" | "p99"; readonly value: number | null };
}

export interface CaseReport {
  readonly id: string;
  readonly title: string;
  /** "not available": the service has no such feature yet; "failed": the case broke (see notes). */
  readonly outcome: "measured" | "not available" | "failed";
  readonly rows: readonly SummaryRow[];
  /** Markdown lines of the case's own section (checks, seeding, drains, ...). */
  readonly details: readonly string[];
  readonly targets: readonly TargetCheck[];
}

export interface RunInfo {
  readonly date: string;
  readonly command: string;
  readonly machine: string;
  readonly software: string;
  readonly commit: string;
  readonly settings: string;
  readonly quick: boolean;
  readonly seconds: number;
}

export function summaryRowOf(label: string, comparison: Comparison): SummaryRow {
  const { service, bare } = comparison;
  return {
    label,
    rate: service.wrk.requestsPerSecond,
    unit: "req/s",
    p50Ms: service.wrk.latencyMs.p50,
    p99Ms: service.wrk.latencyMs.p99,
    bareRate: bare.wrk.requestsPerSecond,
    ratio: comparison.ratio,
    serverCpuPercent: service.serverCpuPercent,
    serverPeakRssMb: service.serverPeakRssMb,
    loadCpuPercent: service.wrk.wrkCpuPercent,
  };
}

/** The wrk figures of one comparison, as a short table (service and bare side by side). */
export function comparisonTable(comparison: Comparison): string[] {
  const line = (name: string, run: Comparison["service"]) =>
    `| ${name} | ${fmt(run.wrk.requestsPerSecond)} | ${run.wrk.requests.toLocaleString("en")} | ${ms(run.wrk.latencyMs.p50)} | ${ms(run.wrk.latencyMs.p90)} | ${ms(run.wrk.latencyMs.p99)} | ${ms(run.wrk.latencyMs.max)} | ` +
    `${run.wrk.errors.status} / ${run.wrk.errors.connect + run.wrk.errors.read + run.wrk.errors.write} / ${run.wrk.errors.timeout} | ${pct(run.serverCpuPercent)} | ${mb(run.serverPeakRssMb)} | ${pct(run.wrk.wrkCpuPercent)} |`;
  return [
    "| Server | req/s | Requests | p50 | p90 | p99 | max | >= 400 / socket errors / timeouts | Server CPU | Server peak RSS | wrk CPU |",
    "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    line("svc-hub", comparison.service),
    line("bare Bun.serve", comparison.bare),
  ];
}

/** A closed loop alternated: each round's ceiling run, then svc-hub's, and the ratio of the two. */
export function closedLoopTable(
  rounds: ReadonlyArray<{ readonly ceiling: MeasuredRun; readonly service: MeasuredRun }>,
): string[] {
  const line = (round: number, name: string, run: MeasuredRun, ratio: string) =>
    `| ${round} | ${name} | ${fmt(run.wrk.requestsPerSecond)} | ${ms(run.wrk.latencyMs.p50)} | ${ms(run.wrk.latencyMs.p90)} | ${ms(run.wrk.latencyMs.p99)} | ${ms(run.wrk.latencyMs.max)} | ` +
    `${run.wrk.errors.status} / ${run.wrk.errors.connect + run.wrk.errors.read + run.wrk.errors.write} / ${run.wrk.errors.timeout} | ${pct(run.serverCpuPercent)} | ${mb(run.serverPeakRssMb)} | ${pct(run.wrk.wrkCpuPercent)} | ${ratio} |`;
  return [
    "| Round | Server | req/s | p50 | p90 | p99 | max | >= 400 / socket errors / timeouts | Server CPU | Server peak RSS | wrk CPU | Of the ceiling |",
    "|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ...rounds.flatMap(({ ceiling, service }, index) => [
      line(index + 1, "durable ceiling", ceiling, ""),
      line(
        index + 1,
        "svc-hub",
        service,
        times(service.wrk.requestsPerSecond / Math.max(1e-9, ceiling.wrk.requestsPerSecond)),
      ),
    ]),
  ];
}

/** Open-loop runs at fixed rates: the ceiling's, then svc-hub's, at each rate, and the ratio of their p99s. */
export function openLoopTable(
  runs: ReadonlyArray<{ readonly rate: number; readonly ceiling: OpenLoopRun; readonly service: OpenLoopRun }>,
): string[] {
  const line = (rate: number, name: string, run: OpenLoopRun, ratio: string) =>
    `| ${fmt(rate)} | ${name} | ${fmt(run.hey.requestsPerSecond)} | ${ms(run.hey.latencyMs.p50)} | ${ms(run.hey.latencyMs.p90)} | ${ms(run.hey.latencyMs.p99)} | ${ms(run.hey.latencyMs.max)} | ` +
    `${run.hey.refused} / ${run.hey.errors} | ${pct(run.serverCpuPercent)} | ${mb(run.serverPeakRssMb)} | ${ratio} |`;
  return [
    "| Asked (req/s) | Server | Reached (req/s) | p50 | p90 | p99 | max | >= 400 / no answer | Server CPU | Server peak RSS | p99 over the ceiling's |",
    "|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ...runs.flatMap(({ rate, ceiling, service }) => [
      line(rate, "durable ceiling", ceiling, ""),
      line(rate, "svc-hub", service, times(service.hey.latencyMs.p99 / Math.max(1e-9, ceiling.hey.latencyMs.p99))),
    ]),
  ];
}

/** A ratio as a factor: `0.46×`, `2.08×`. */
export function times(value: number | null): string {
  return value === null || !Number.isFinite(value) ? "–" : `${value.toFixed(2)}×`;
}

export function fmt(value: number | null, digits = 0): string {
  if (value === null || !Number.isFinite(value)) return "–";
  return value.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function ms(value: number | null): string {
  return value === null ? "–" : `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
}

export function pct(value: number | null): string {
  return value === null ? "–" : `${Math.round(value)}%`;
}

export function mb(value: number | null): string {
  return value === null ? "–" : `${Math.round(value)} MB`;
}

function ratioText(value: number | null): string {
  return value === null ? "–" : `${(value * 100).toFixed(1)}%`;
}

function metText(met: boolean | null): string {
  return met === null ? "not measured" : met ? "**met**" : "**not met**";
}

/** The heading of the part of RESULTS.md that bench/run.ts writes; sections after it belong to other scripts. */
export const generatedHeading = "# svc-hub benchmarks";

export function renderResults(
  info: RunInfo,
  cases: readonly CaseReport[],
  notes: { readonly method: readonly string[]; readonly history: string },
): string {
  const rows = cases.flatMap((entry) => entry.rows);
  const targets = cases.flatMap((entry) => entry.targets);
  const lines = [
    generatedHeading,
    "",
    `Written by \`${info.command}\` (bench/run.ts); do not edit by hand: run it again.${info.quick ? " **A quick smoke run: short and small, not a measurement.**" : ""}`,
    "",
    "| | |",
    "|---|---|",
    `| Date | ${info.date} |`,
    `| Machine | ${info.machine} |`,
    `| Software | ${info.software} |`,
    `| Commit | ${info.commit} |`,
    `| Command | \`${info.command}\` |`,
    `| Load | ${info.settings} |`,
    `| Took | ${Math.round(info.seconds)} s |`,
    "",
    "## Summary",
    "",
    "Server CPU is in percent of one core during the measured run (the server is one process with several busy threads:",
    "HTTP, the background thread that commits events and runs the workers, and the lookup thread that reads for the",
    "moments API, so it can exceed 100%); the load generator's CPU is wrk's, on the same machine: on 2 cores they",
    "compete, and the bare server's figure is what this machine can do at all with wrk beside it. Peak RSS is the",
    "server process's VmHWM. The collection cases are measured against the durable ceiling (bench/ceiling.ts `durable`:",
    "the collection use case and a flat-file append, one fdatasync a group) in the same run, alternated: closed loop",
    "(wrk) its requests a second and svc-hub's share of them, open loop (hey at a fixed rate) its p99 and svc-hub's",
    "p99 over it.",
    "",
    "| Case | Throughput | p50 | p99 | Bare Bun.serve | Ratio to bare | Durable ceiling | Of the ceiling | Server CPU | Server peak RSS | Load generator CPU |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (row) =>
        `| ${row.label} | ${row.rate === null ? "–" : `${fmt(row.rate)} ${row.unit}`} | ${ms(row.p50Ms)} | ${ms(row.p99Ms)} | ${row.bareRate === null ? "–" : `${fmt(row.bareRate)} req/s`} | ` +
        `${ratioText(row.ratio)} | ${row.ceiling ? `${fmt(row.ceiling.rate)} req/s, p99 ${ms(row.ceiling.p99Ms)}` : "–"} | ` +
        `${row.ceiling ? `${row.ceiling.ratio.of === "p99" ? "p99 " : ""}${times(row.ceiling.ratio.value)}` : "–"} | ` +
        `${pct(row.serverCpuPercent)} | ${mb(row.serverPeakRssMb)} | ${pct(row.loadCpuPercent)} |`,
    ),
    ...cases
      .filter((entry) => entry.outcome !== "measured")
      .map((entry) => `| ${entry.title} | ${entry.outcome} | | | | | | | | | |`),
    "",
    "## Targets (2-core machine)",
    "",
    "| Goal | Found | |",
    "|---|---|---|",
    ...targets.map((target) => `| ${target.goal} | ${target.found} | ${metText(target.met)} |`),
    "",
    ...cases.flatMap((entry) => [
      `## ${entry.title}`,
      "",
      ...(entry.outcome === "measured" ? [] : [`**${entry.outcome}.**`, ""]),
      ...entry.details,
      "",
    ]),
    "## How it is measured",
    "",
    ...notes.method,
    "",
    notes.history.trim(),
    "",
  ];
  return `${lines
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}

/** Headings of the sections bench/run.ts writes: fixed ones, and the cases' ("1. GET /event ...", "Case get"). */
export function isOwnHeading(heading: string): boolean {
  return (
    ["Summary", "Targets (2-core machine)", "How it is measured", "Where the time goes, and what was fixed"].includes(
      heading,
    ) || /^(\d+\. |Case )/.test(heading)
  );
}

/**
 * The new RESULTS.md: what bench/run.ts made, then the sections of the old file that other scripts write
 * (a `## ` heading that is not one of ours, e.g. bench/import-memory.ts's "## file import"), kept as they were.
 */
export function mergeResults(generated: string, previous: string | null): string {
  if (!previous) return generated;
  const kept = previous
    .split(/\n(?=## )/)
    .filter((section) => section.startsWith("## ") && !isOwnHeading(/^## (.*)$/m.exec(section)?.[1]?.trim() ?? ""))
    .map((section) => section.trimEnd());
  return kept.length === 0 ? generated : `${generated.trimEnd()}\n\n${kept.join("\n\n")}\n`;
}
