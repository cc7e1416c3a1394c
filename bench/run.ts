/**
 * `bun run bench`: svc-hub under load on loopback, side by side in the same run with the durable ceiling
 * (bench/ceiling.ts `durable`, for the collection cases) and a bare Bun.serve, and bench/RESULTS.md written from
 * what was measured.
 *
 *   bun run bench                              # every case (about 5 minutes); writes bench/RESULTS.md
 *   bun bench/run.ts --quick                   # a smoke run: short runs, small data; written to a temporary file
 *   bun bench/run.ts --only get --only moments # some cases (get, post, moments, import, datalayer, package, start)
 *   bun bench/run.ts --out file.md --json file.json
 *
 * Only a full run of every case writes bench/RESULTS.md (unless --out says where); the sections of that file
 * that other scripts write (bench/import-memory.ts's "## file import") are kept.
 */
import { execSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { fromInvocation } from "../adapters/runtime/paths.ts";
import { closedLoopRounds, collectCase, openLoop } from "./cases/collect.ts";
import { dataLayerCase } from "./cases/datalayer.ts";
import { fileImportCase } from "./cases/file-import.ts";
import { momentsCase } from "./cases/moments.ts";
import { packageSizeCase } from "./cases/package-size.ts";
import { startCase } from "./cases/start.ts";
import { ceilingTargets } from "./lib/ceiling-targets.ts";
import { ensureHey } from "./lib/hey.ts";
import { type CaseReport, mergeResults, type RunInfo, renderResults } from "./lib/report.ts";
import {
  type BareProcess,
  type BenchContext,
  benchEventsPerSecond,
  startBare,
  writeBenchConfig,
} from "./lib/servers.ts";
import { ensureWrk, type WrkSettings } from "./lib/wrk.ts";

export const caseIds = ["get", "post", "moments", "import", "datalayer", "package", "start"] as const;
export type CaseId = (typeof caseIds)[number];

export interface BenchOptions {
  readonly quick: boolean;
  readonly only: readonly CaseId[];
  readonly out: string | null;
  readonly json: string | null;
  readonly keep: boolean;
}

/** `--out` and `--json` are read from the folder the command was typed in (npm's INIT_CWD), as `svc` and `conformance` read their paths. */
export function parseArgs(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): BenchOptions {
  const only: CaseId[] = [];
  let quick = false;
  let out: string | null = null;
  let json: string | null = null;
  let keep = false;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    const value = () => {
      const next = args[index + 1];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      index += 1;
      return next;
    };
    if (arg === "--quick") quick = true;
    else if (arg === "--keep") keep = true;
    else if (arg === "--only") {
      const id = value();
      if (!(caseIds as readonly string[]).includes(id))
        throw new Error(`--only takes one of ${caseIds.join(", ")}, not "${id}"`);
      only.push(id as CaseId);
    } else if (arg === "--out") out = fromInvocation(value(), env);
    else if (arg === "--json") json = fromInvocation(value(), env);
    else
      throw new Error(`unknown argument "${arg}" (known: --quick, --only <case>, --out <file>, --json <file>, --keep)`);
  }
  return { quick, only, out, json, keep };
}

export function wrkSettingsFor(quick: boolean): WrkSettings {
  return quick
    ? { threads: 2, connections: 64, seconds: 2, warmupSeconds: 1 }
    : { threads: 2, connections: 64, seconds: 12, warmupSeconds: 3 };
}

function describeMachine(): string {
  const list = cpus();
  const model = list[0]?.model.trim() ?? "unknown CPU";
  const [one, five] = loadavg();
  return `${list.length} cores (${model}), ${(totalmem() / 1024 ** 3).toFixed(1)} GiB memory, Linux ${release()}; load average at the start ${one?.toFixed(2)} (1 min), ${five?.toFixed(2)} (5 min)`;
}

/**
 * The commit measured, and whether the checkout differs from it. The results file itself does not count: the
 * run before this one leaves it changed, and the code measured is the same.
 */
function describeCommit(root: string): string {
  try {
    const head = execSync("git rev-parse --short HEAD", { cwd: root, encoding: "utf8" }).trim();
    const dirty =
      execSync("git status --porcelain -- . ':(exclude)bench/RESULTS.md'", { cwd: root, encoding: "utf8" }).trim() !==
      "";
    return `${head}${dirty ? " with uncommitted changes" : ""}`;
  } catch {
    return "unknown (not a git checkout)";
  }
}

const methodNotes = (settings: WrkSettings, quick: boolean) => [
  `- Load generator: wrk (Debian) on 127.0.0.1, ${settings.threads} threads, ${settings.connections} connections, ${settings.warmupSeconds} s of warm-up and then ` +
    `${settings.seconds} s measured, for every load. Each load runs first against the bare server (bench/bare-server.ts: \`Bun.serve\` answering the ` +
    "same 43-byte GIF, reading the body if any), then against svc-hub, with the same Lua script; the ratio is svc-hub's requests per second over the bare server's.",
  "- svc-hub runs as `npm start` does (adapters/server/main.ts, started by tools/spawn-server.ts), one fresh process and libSQL data directory per case, " +
    "with its structured request log on (read by the bench through a pipe). The store is durable: WAL with synchronous=FULL, and a collected event is " +
    "answered 200 only once the group commit holding it is committed.",
  `- Configuration: the demo's (adapters/config/demo.config.json) with \`limits.collectEventsPerSecond\` raised from 100 to ${benchEventsPerSecond.toLocaleString("en")} ` +
    "and `limits.collectBytesPerSourcePerSecond` from 8 MiB to 1 TiB, so that the collection cases measure the service rather than its rate limit (at 100 events/s per account everything above would be 429). Timing preset `fast`.",
  "- Server CPU: utime + stime of /proc/<pid>/stat before and after the measured run, in percent of one core. Peak memory: VmHWM of /proc/<pid>/status. " +
    "wrk CPU: wrk's own /proc/self/stat, read by its Lua `done` hook. On this 2-core machine wrk and the server share the cores; the bare figure carries the same cost.",
  "- p50/p99 are wrk's latency percentiles of the measured run (from the request sent to the answer read).",
  "- The collection cases (GET and POST /event) are measured against the durable ceiling (bench/ceiling.ts `durable`, bench/CEILING.md): the collection use case " +
    "served from Bun's router, each group of events appended to a flat file in the same scratch directory as svc-hub's data and answered once its one fdatasync returned. " +
    "What no store can beat here: the disk's sync, not a server that stores nothing, bounds a durable answer. Closed loop: wrk -t1 -c64, the ceiling and svc-hub " +
    `alternated (${quick ? closedLoopRounds.quick : closedLoopRounds.full} round(s), each run after its own warm-up), the target svc-hub at ${ceilingTargets.closedLoopRatio * 100}% of the ceiling's requests a second over the rounds together. ` +
    `Open loop: Debian's hey at ${ceilingTargets.openLoop.map((target) => target.rate.toLocaleString("en")).join(" and ")} requests a second, ${openLoop.connections} workers each paced at the rate over ${openLoop.connections} ` +
    "(hey's -q is a rate a worker), the ceiling first at each rate; a worker whose answer comes after its next tick skips it, so a server that cannot keep up " +
    `shows as a rate reached below the one asked (kept: at least ${ceilingTargets.rateKeptShare * 100}% of it). hey sends one request again and again (the first of the closed loop's list, one visitor); ` +
    "its latencies are from each request's send to its answer.",
];

export async function runBench(
  root: string,
  options: BenchOptions,
  log: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<{ markdown: string; cases: CaseReport[]; path: string }> {
  const started = performance.now();
  const wrkVersionLine = ensureWrk(log);
  const collects = options.only.length === 0 || options.only.some((id) => id === "get" || id === "post");
  const heyVersionLine = collects ? ensureHey(log) : null;
  const scratch = mkdtempSync(join(tmpdir(), "svc-hub-bench-"));
  const settings = wrkSettingsFor(options.quick);
  const ctx: BenchContext = { root, scratch, quick: options.quick, wrk: settings, log };
  const selected = options.only.length > 0 ? caseIds.filter((id) => options.only.includes(id)) : [...caseIds];
  const command = ["bun run bench", ...process.argv.slice(2)].join(" ");
  const info: Omit<RunInfo, "seconds"> = {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    command,
    machine: describeMachine(),
    software: `Bun ${Bun.version}, ${wrkVersionLine}${heyVersionLine ? `, ${heyVersionLine}` : ""}`,
    commit: describeCommit(root),
    settings:
      `wrk -t${settings.threads} -c${settings.connections}, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s per load, loopback` +
      (collects
        ? `; collection against the durable ceiling: wrk -t1 -c${settings.connections} alternated, hey -c${openLoop.connections} at fixed rates, ${options.quick ? openLoop.quickSeconds : openLoop.seconds} s a rate`
        : ""),
    quick: options.quick,
  };
  log(`svc-hub bench: ${selected.join(", ")}${options.quick ? " (quick)" : ""}; scratch ${scratch}`);
  writeBenchConfig(scratch);
  const cases: CaseReport[] = [];
  let bare: BareProcess | null = null;
  try {
    bare = await startBare(ctx);
    const run: Record<CaseId, (bareServer: BareProcess) => Promise<CaseReport>> = {
      get: (b) => collectCase(ctx, b, "GET"),
      post: (b) => collectCase(ctx, b, "POST"),
      moments: (b) => momentsCase(ctx, b),
      import: () => fileImportCase(ctx),
      datalayer: (b) => dataLayerCase(ctx, b),
      package: async () => packageSizeCase(ctx),
      start: () => startCase(ctx),
    };
    for (const id of selected) {
      try {
        cases.push(await run[id](bare));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log(`  the case failed: ${message}`);
        cases.push({
          id,
          title: `Case ${id}`,
          outcome: "failed",
          rows: [],
          details: ["```", message.slice(0, 4000), "```"],
          targets: [],
        });
      }
    }
  } finally {
    await bare?.stop();
    if (!options.keep) rmSync(scratch, { recursive: true, force: true });
  }

  const historyPath = join(root, "bench", "FINDINGS.md");
  // Its headings one level down, so that they stay inside this section of RESULTS.md.
  const history = existsSync(historyPath)
    ? readFileSync(historyPath, "utf8")
        .replace(/^# .*\n/, "")
        .replace(/^## /gm, "### ")
    : "";
  const markdown = renderResults({ ...info, seconds: (performance.now() - started) / 1000 }, cases, {
    method: methodNotes(settings, options.quick),
    history: history
      ? `## Where the time goes, and what was fixed\n\n(From bench/FINDINGS.md, written by hand during development; the figures above are this run's.)\n${history}`
      : "",
  });
  const full = !options.quick && options.only.length === 0;
  const path =
    options.out ?? (full ? join(root, "bench", "RESULTS.md") : join(tmpdir(), `svc-hub-bench-${Date.now()}.md`));
  const previous = existsSync(path) ? readFileSync(path, "utf8") : null;
  writeFileSync(path, mergeResults(markdown, previous));
  if (options.json) writeFileSync(options.json, `${JSON.stringify({ info, cases }, null, 2)}\n`);
  return { markdown, cases, path };
}

if (import.meta.main) {
  let options: BenchOptions;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const { cases, path } = await runBench(resolve(import.meta.dir, ".."), options);
  process.stdout.write(`\nwrote ${path}\n`);
  for (const target of cases.flatMap((entry) => entry.targets)) {
    process.stdout.write(
      `  ${target.met === null ? "–" : target.met ? "met" : "NOT met"}: ${target.goal}: ${target.found}\n`,
    );
  }
  const failed = cases.filter((entry) => entry.outcome === "failed");
  process.exit(failed.length > 0 ? 1 : 0);
}
