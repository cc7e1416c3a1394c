/**
 * Case 6 (issue 41, "ready in a blink"): from the process's spawn to the first 200 of GET /readyz, on a fresh data
 * directory with the demo configuration, for `npm start` (what it runs: `bun adapters/server/main.ts`) and for the
 * single executable (dist/exe/svc-hub-linux-x64, made by `npm run build:exe`) when it is there; then the idle
 * memory: the process's VmRSS after it has been ready and left alone for a while. Several starts of each, the
 * median and the worst. A benchmark, not a test: the figures move with the machine's load, printed beside them.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import { rssMbOf } from "../lib/proc.ts";
import type { CaseReport, TargetCheck } from "../lib/report.ts";
import type { BenchContext } from "../lib/servers.ts";

/** The issue's targets: at most this long to ready, and this much memory idle. */
export const startTargets = { npmStartMs: 600, executableMs: 300, idleRssMb: 80 } as const;

/** The executable `npm run build:exe` writes for this machine, relative to the checkout. */
export const executablePath = join("dist", "exe", "svc-hub-linux-x64");

/** How long a started server is left alone before its memory is read. */
const idleMs = 3_000;
/** A start that takes longer than this is a failure of the case, not a figure. */
const startLimitMs = 60_000;

/** One way of starting svc-hub: the command, its working directory, and the arguments. */
export interface StartCommand {
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The folder it is started in: the checkout for `npm start`, an empty one for the executable. */
  readonly cwd: string | null;
}

/** What one start measured. */
export interface StartRun {
  readonly readyMs: number;
  readonly idleRssMb: number | null;
}

/** The median of `values` (the mean of the two middle ones for an even count). */
export function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Asks GET /readyz until it answers 200; the time of that answer. */
async function readyAt(url: string, exited: () => string | null): Promise<number> {
  const limit = performance.now() + startLimitMs;
  while (performance.now() < limit) {
    const exit = exited();
    if (exit !== null) throw new Error(`the server ended before it was ready (${exit})`);
    try {
      const answer = await fetch(url);
      await answer.arrayBuffer();
      if (answer.status === 200) return performance.now();
    } catch {
      // Not listening yet.
    }
    await Bun.sleep(5);
  }
  throw new Error(`not ready within ${startLimitMs / 1000} s`);
}

/** Starts svc-hub once on a fresh data directory: time to ready, then its memory once idle; stopped with SIGTERM. */
export async function measureStart(start: StartCommand, scratch: string): Promise<StartRun> {
  const dataDir = mkdtempSync(join(scratch, "start-data-"));
  const cwd = start.cwd ?? mkdtempSync(join(scratch, "start-empty-"));
  const port = await freePort();
  const began = performance.now();
  const child = spawn(start.command, [...start.args], {
    cwd,
    env: { ...process.env, PORT: String(port), SVC_HOST: "127.0.0.1", SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let exit: string | null = null;
  const ended = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      exit = `exit code ${code ?? signal}; ${stderr.trim().split("\n").slice(-3).join(" / ")}`;
      resolve();
    }),
  );
  try {
    const ready = await readyAt(`http://127.0.0.1:${port}/readyz`, () => exit);
    await Bun.sleep(idleMs);
    const idleRssMb = child.pid === undefined ? null : rssMbOf(child.pid);
    return { readyMs: ready - began, idleRssMb };
  } finally {
    if (exit === null) child.kill("SIGTERM");
    await Promise.race([ended, Bun.sleep(10_000)]);
    if (exit === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
    if (start.cwd === null) rmSync(cwd, { recursive: true, force: true });
  }
}

const ms = (value: number) => `${Math.round(value)} ms`;
const mb = (value: number | null) => (value === null ? "–" : `${value.toFixed(0)} MB`);

export async function startCase(ctx: BenchContext): Promise<CaseReport> {
  const runs = ctx.quick ? 3 : 7;
  const executable = join(ctx.root, executablePath);
  const starts: StartCommand[] = [
    {
      label: "`npm start` (bun adapters/server/main.ts)",
      command: process.execPath,
      args: ["adapters/server/main.ts"],
      cwd: ctx.root,
    },
  ];
  if (existsSync(executable))
    starts.push({
      label: `the executable (${executablePath} start, from an empty folder)`,
      command: executable,
      args: ["start"],
      cwd: null,
    });
  const measured: Array<{ start: StartCommand; runs: StartRun[]; load: number }> = [];
  for (const start of starts) {
    ctx.log(`  start: ${start.label}, ${runs} starts`);
    const [load = 0] = loadavg();
    const found: StartRun[] = [];
    for (let index = 0; index < runs; index += 1) found.push(await measureStart(start, ctx.scratch));
    measured.push({ start, runs: found, load });
  }
  const [npmStart, exe] = measured;
  const rssOf = (entry: (typeof measured)[number]) =>
    entry.runs.map((run) => run.idleRssMb).filter((value): value is number => value !== null);
  const targets: TargetCheck[] = [];
  if (npmStart) {
    const ready = npmStart.runs.map((run) => run.readyMs);
    targets.push({
      goal: `\`npm start\`: ready (GET /readyz 200) at most ${startTargets.npmStartMs} ms after the spawn, fresh data directory (median of ${runs})`,
      met: medianOf(ready) <= startTargets.npmStartMs,
      found: `median ${ms(medianOf(ready))}, worst ${ms(Math.max(...ready))}`,
    });
  }
  targets.push(
    exe
      ? {
          goal: `The executable: ready at most ${startTargets.executableMs} ms after the spawn, fresh data directory (median of ${runs})`,
          met: medianOf(exe.runs.map((run) => run.readyMs)) <= startTargets.executableMs,
          found: `median ${ms(medianOf(exe.runs.map((run) => run.readyMs)))}, worst ${ms(Math.max(...exe.runs.map((run) => run.readyMs)))}`,
        }
      : {
          goal: `The executable: ready at most ${startTargets.executableMs} ms after the spawn`,
          met: null,
          found: `not measured: ${executablePath} is not there (\`npm run build:exe\` makes it)`,
        },
  );
  for (const entry of measured) {
    const rss = rssOf(entry);
    targets.push({
      goal: `${entry === exe ? "The executable" : "`npm start`"}: idle memory (VmRSS ${idleMs / 1000} s after ready) at most ${startTargets.idleRssMb} MB (median of ${runs})`,
      met: rss.length === 0 ? null : medianOf(rss) <= startTargets.idleRssMb,
      found: rss.length === 0 ? "not read" : `median ${mb(medianOf(rss))}, largest ${mb(Math.max(...rss))}`,
    });
  }
  return {
    id: "start",
    title: "6. Start: time to ready and idle memory",
    outcome: "measured",
    rows: [],
    details: [
      `Each start: a fresh data directory and the demo configuration, \`PORT\` a free port; the time from the spawn to the first 200 of GET /readyz (asked every 5 ms), then VmRSS of /proc/<pid>/status after ${idleMs / 1000} s without requests; stopped with SIGTERM. ${runs} starts of each, one after the other.`,
      "",
      "| Command | Load average (1 min) | Ready: median | Ready: worst | Each start | Idle RSS: median | Idle RSS: largest |",
      "|---|---:|---:|---:|---|---:|---:|",
      ...measured.map((entry) => {
        const ready = entry.runs.map((run) => run.readyMs);
        const rss = rssOf(entry);
        return `| ${entry.start.label} | ${entry.load.toFixed(2)} | ${ms(medianOf(ready))} | ${ms(Math.max(...ready))} | ${ready.map((value) => Math.round(value)).join(", ")} ms | ${mb(rss.length > 0 ? medianOf(rss) : null)} | ${mb(rss.length > 0 ? Math.max(...rss) : null)} |`;
      }),
      ...(exe
        ? []
        : ["", `The executable was not measured: ${executablePath} is not there (\`npm run build:exe\` makes it).`]),
    ],
    targets,
  };
}
