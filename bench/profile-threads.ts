/**
 * `bun bench/profile-threads.ts [get|post|moments] [--out file.md]`: where the server's time goes under the
 * collection load (or the moments lookups, with 1,000,000 profiles seeded as bench/cases/moments.ts does), thread
 * by thread. It starts svc-hub as the bench does (libSQL, its background and lookup threads), with
 * SVC_CPU_PROFILE_DIR set (adapters/runtime/thread-profile.ts), drives it with wrk and the bench's requests,
 * profiles each thread over the same window once the server is warm, and prints each thread's self time by
 * function (bench/profile-summary.ts). The reference (the durable ceiling, bench/ceiling.ts `durable`, for
 * collection; the bare Bun.serve for the lookups) is measured in the same run under the same wrk, once before
 * svc-hub and once after, with its threads' CPU, so the profile is read against what that server does on the
 * machine at that moment. bench/FINDINGS.md keeps what it showed.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getScenario, postScenario } from "./cases/collect.ts";
import { momentsScenario, seedMomentsData } from "./cases/moments.ts";
import { clockTicksPerSecond, threadTicksOf } from "./lib/proc.ts";
import {
  type BareProcess,
  type BenchContext,
  startBare,
  startCeiling,
  startService,
  writeBenchConfig,
} from "./lib/servers.ts";
import { ensureWrk, runWrk, type WrkScenario, type WrkSettings } from "./lib/wrk.ts";
import { summaryOf } from "./profile-summary.ts";

/** Seconds from the server's start to the profile window: its start and a warm-up under load. */
const delaySeconds = 8;
const windowSeconds = 10;
const threads = ["http", "background", "lookup"];
/** The reference's warm-up under load before its measured run. */
const referenceWarmupSeconds = 3;
/** Profiles seeded for the moments lookups, as the bench's moments case. */
const momentsProfiles = 1_000_000;

interface ThreadCpu {
  readonly thread: string;
  readonly percent: number;
}

/** Each thread of `pid` that used at least 1% of a core between the two readings. */
function threadCpuBetween(before: Map<string, number>, after: Map<string, number>, seconds: number): ThreadCpu[] {
  return [...after]
    .map(([thread, ticks]) => ({
      thread,
      percent: ((ticks - (before.get(thread) ?? 0)) / clockTicksPerSecond / seconds) * 100,
    }))
    .filter((row) => row.percent >= 1)
    .sort((a, b) => b.percent - a.percent);
}

/** One run of the reference server under the same load: a warm-up, then the window's length measured. */
async function referenceRun(
  reference: BareProcess,
  scenario: WrkScenario,
  settings: WrkSettings,
  scratch: string,
): Promise<{ requestsPerSecond: number; p99: number; cpu: ThreadCpu[] }> {
  await runWrk(
    reference.url,
    { ...scenario, name: `${scenario.name}-reference-warmup` },
    settings,
    referenceWarmupSeconds,
    scratch,
  );
  const before = threadTicksOf(reference.pid);
  const run = await runWrk(
    reference.url,
    { ...scenario, name: `${scenario.name}-reference` },
    settings,
    windowSeconds,
    scratch,
  );
  const cpu = threadCpuBetween(before, threadTicksOf(reference.pid), windowSeconds);
  return { requestsPerSecond: run.requestsPerSecond, p99: run.latencyMs.p99, cpu };
}

const perSecond = (value: number) => Math.round(value).toLocaleString("en-US");

async function main(args: readonly string[]): Promise<void> {
  const load = args.includes("moments") ? "moments" : args.includes("post") ? "post" : "get";
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
  const scenario =
    load === "moments" ? momentsScenario(momentsProfiles) : load === "post" ? postScenario() : getScenario();
  const what = load === "moments" ? "moments lookups" : `${load.toUpperCase()} /event`;
  const dataDir = join(scratch, "data");
  if (load === "moments") await seedMomentsData(ctx, dataDir, momentsProfiles);
  const referenceName = load === "moments" ? "bare Bun.serve" : "durable ceiling";
  const reference = load === "moments" ? await startBare(ctx) : await startCeiling(ctx, join(scratch, "ceiling.jsonl"));
  let referenceBefore: Awaited<ReturnType<typeof referenceRun>>;
  try {
    ctx.log(`the ${referenceName} first: wrk -t1 -c64, ${referenceWarmupSeconds} s warm-up and ${windowSeconds} s`);
    referenceBefore = await referenceRun(reference, scenario, settings, scratch);
  } catch (error) {
    await reference.stop();
    throw error;
  }
  const started = Date.now();
  const service = await startService(ctx, dataDir, {
    SVC_CPU_PROFILE_DIR: profiles,
    SVC_CPU_PROFILE_DELAY_S: String(delaySeconds),
    SVC_CPU_PROFILE_S: String(windowSeconds),
  });
  let report: string;
  try {
    // One wrk run from now until a second past the window, so the window sees the load throughout.
    const loadSeconds = Math.ceil(delaySeconds + windowSeconds + 1 - (Date.now() - started) / 1000);
    ctx.log(
      `profiling ${what}: wrk -t1 -c64 for ${loadSeconds} s, the window ${delaySeconds}–${delaySeconds + windowSeconds} s after the start`,
    );
    // Each thread's CPU over the window, from Linux: the profiles count only the time JavaScript ran.
    const windowStart = started + delaySeconds * 1000;
    const cpu = (async () => {
      await Bun.sleep(Math.max(0, windowStart - Date.now()));
      const before = threadTicksOf(service.pid);
      await Bun.sleep(windowSeconds * 1000);
      return threadCpuBetween(before, threadTicksOf(service.pid), windowSeconds);
    })();
    const wrk = await runWrk(service.url, scenario, settings, loadSeconds, scratch);
    const threadCpu = await cpu;
    const deadline = Date.now() + 10_000;
    const written = () => (existsSync(profiles) ? readdirSync(profiles) : []);
    while (written().length < threads.length && Date.now() < deadline) await Bun.sleep(200);
    const files = written().sort(
      (a, b) => threads.indexOf(a.split("-")[0] ?? "") - threads.indexOf(b.split("-")[0] ?? ""),
    );
    // svc-hub stopped first, so that its background work left does not share the machine with the reference.
    await service.stop();
    ctx.log(`the ${referenceName} again`);
    const referenceAfter = await referenceRun(reference, scenario, settings, scratch);
    const referenceMean = (referenceBefore.requestsPerSecond + referenceAfter.requestsPerSecond) / 2;
    report = [
      `${what} under wrk -t1 -c64 (the bench's requests): ${perSecond(wrk.requestsPerSecond)} req/s, p99 ${wrk.latencyMs.p99.toFixed(1)} ms over the whole run; each thread profiled over the same ${windowSeconds} s once warm.`,
      "",
      `The ${referenceName} in the same run, the same load, before and after: ${perSecond(referenceBefore.requestsPerSecond)} and ${perSecond(referenceAfter.requestsPerSecond)} req/s (p99 ${referenceBefore.p99.toFixed(1)} and ${referenceAfter.p99.toFixed(1)} ms); svc-hub at **${(wrk.requestsPerSecond / referenceMean).toFixed(2)}×** their mean.`,
      "",
      `Each thread's CPU over the window (/proc/<pid>/task; Bun names its threads), svc-hub's and the ${referenceName}'s (its run before svc-hub):`,
      "",
      "| Server | Thread | CPU % |",
      "|---|---|---:|",
      ...threadCpu.map((row) => `| svc-hub | ${row.thread} | ${row.percent.toFixed(0)} |`),
      ...referenceBefore.cpu.map((row) => `| ${referenceName} | ${row.thread} | ${row.percent.toFixed(0)} |`),
      "",
      ...files.map((file) => summaryOf(join(profiles, file), 20)),
    ].join("\n");
  } finally {
    await service.stop();
    await reference.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  process.stdout.write(`${report}\n`);
  if (out) writeFileSync(out, `${report}\n`);
}

await main(process.argv.slice(2));
