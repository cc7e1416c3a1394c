/**
 * `bun bench/profile-threads.ts [get|post] [--out file.md]`: where the server's time goes under the collection
 * load, thread by thread. It starts svc-hub as the bench does (libSQL, its background and lookup threads), with
 * SVC_CPU_PROFILE_DIR set (adapters/runtime/thread-profile.ts), drives it with wrk and the bench's requests,
 * profiles each thread over the same window once the server is warm, and prints each thread's self time by
 * function (bench/profile-summary.ts). bench/FINDINGS.md keeps what it showed.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getScenario, postScenario } from "./cases/collect.ts";
import { clockTicksPerSecond, threadTicksOf } from "./lib/proc.ts";
import { type BenchContext, startService, writeBenchConfig } from "./lib/servers.ts";
import { ensureWrk, runWrk, type WrkSettings } from "./lib/wrk.ts";
import { summaryOf } from "./profile-summary.ts";

/** Seconds from the server's start to the profile window: its start and a warm-up under load. */
const delaySeconds = 8;
const windowSeconds = 10;
const threads = ["http", "background", "lookup"];

async function main(args: readonly string[]): Promise<void> {
  const method = args.includes("post") ? "POST" : "GET";
  const outAt = args.indexOf("--out");
  const out = outAt >= 0 ? resolve(args[outAt + 1] as string) : null;
  const settings: WrkSettings = { threads: 1, connections: 64, seconds: windowSeconds, warmupSeconds: 0 };
  const scratch = mkdtempSync(join(tmpdir(), "svc-hub-profile-"));
  const ctx: BenchContext = {
    root: resolve(import.meta.dir, ".."),
    scratch,
    quick: false,
    wrk: settings,
    log: (line) => process.stderr.write(`${line}\n`),
  };
  ensureWrk(ctx.log);
  writeBenchConfig(scratch);
  const profiles = join(scratch, "profiles");
  const started = Date.now();
  const service = await startService(ctx, join(scratch, "data"), {
    SVC_CPU_PROFILE_DIR: profiles,
    SVC_CPU_PROFILE_DELAY_S: String(delaySeconds),
    SVC_CPU_PROFILE_S: String(windowSeconds),
  });
  let report: string;
  try {
    // One wrk run from now until a second past the window, so the window sees the load throughout.
    const loadSeconds = Math.ceil(delaySeconds + windowSeconds + 1 - (Date.now() - started) / 1000);
    const scenario = method === "GET" ? getScenario() : postScenario();
    ctx.log(
      `profiling ${method} /event: wrk -t1 -c64 for ${loadSeconds} s, the window ${delaySeconds}–${delaySeconds + windowSeconds} s after the start`,
    );
    // Each thread's CPU over the window, from Linux: the profiles count only the time JavaScript ran.
    const windowStart = started + delaySeconds * 1000;
    const cpu = (async () => {
      await Bun.sleep(Math.max(0, windowStart - Date.now()));
      const before = threadTicksOf(service.pid);
      await Bun.sleep(windowSeconds * 1000);
      const after = threadTicksOf(service.pid);
      return [...after]
        .map(([thread, ticks]) => ({
          thread,
          percent: ((ticks - (before.get(thread) ?? 0)) / clockTicksPerSecond / windowSeconds) * 100,
        }))
        .filter((row) => row.percent >= 1)
        .sort((a, b) => b.percent - a.percent);
    })();
    const wrk = await runWrk(service.url, scenario, settings, loadSeconds, scratch);
    const threadCpu = await cpu;
    const deadline = Date.now() + 10_000;
    const written = () => (existsSync(profiles) ? readdirSync(profiles) : []);
    while (written().length < threads.length && Date.now() < deadline) await Bun.sleep(200);
    const files = written().sort(
      (a, b) => threads.indexOf(a.split("-")[0] ?? "") - threads.indexOf(b.split("-")[0] ?? ""),
    );
    report = [
      `${method} /event under wrk -t1 -c64 (the bench's requests): ${Math.round(wrk.requestsPerSecond).toLocaleString("en-US")} req/s, p99 ${wrk.latencyMs.p99.toFixed(1)} ms over the whole run; each thread profiled over the same ${windowSeconds} s once warm.`,
      "",
      "Each thread's CPU over the window (/proc/<pid>/task; Bun names its threads):",
      "",
      "| Thread | CPU % |",
      "|---|---:|",
      ...threadCpu.map((row) => `| ${row.thread} | ${row.percent.toFixed(0)} |`),
      "",
      ...files.map((file) => summaryOf(join(profiles, file), 20)),
    ].join("\n");
  } finally {
    await service.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(`${report}\n`);
  if (out) writeFileSync(out, `${report}\n`);
}

await main(process.argv.slice(2));
