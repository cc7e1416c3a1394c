/**
 * `bun bench/postgres.ts`: durable GET /event on the PostgreSQL store (docs/several-nodes.md), on one node and
 * on two nodes of one database, against the bare Bun.serve in the same run, with PostgreSQL on the same
 * machine (durable: fsync on). The GET case's requests (bench/cases/collect.ts); on two nodes, two wrk
 * processes share the connections, one per node. While the load runs, the profile lag (events stored but not
 * yet applied to their visitors' profiles) is sampled from the database every 250 ms; after it, the time
 * POST /admin/wait takes to fold what is left. Every 200 must be a stored event.
 *
 *   bun bench/postgres.ts                 # 3 s warm-up + 12 s per load; writes bench/RESULTS.md "## PostgreSQL"
 *   bun bench/postgres.ts --quick         # 1 s + 3 s, printed only
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { startPostgresServer } from "../tools/postgres-server.ts";
import { getScenario } from "./cases/collect.ts";
import { measure } from "./lib/measure.ts";
import { cpuPercent, cpuTicksOf } from "./lib/proc.ts";
import { fmt, ms } from "./lib/report.ts";
import { writeResultsSection } from "./lib/results-section.ts";
import {
  type BenchContext,
  drainBackground,
  type ServiceProcess,
  startBare,
  startService,
  writeBenchConfig,
} from "./lib/servers.ts";
import { ensureWrk, runWrk, type WrkResult } from "./lib/wrk.ts";

const quick = process.argv.includes("--quick");
const root = resolve(import.meta.dir, "..");
const scratch = mkdtempSync(join(tmpdir(), "svc-hub-bench-pg-"));
const ctx: BenchContext = {
  root,
  scratch,
  quick,
  wrk: { threads: 2, connections: 64, warmupSeconds: quick ? 1 : 3, seconds: quick ? 3 : 12 },
  log: (line) => process.stdout.write(`${line}\n`),
};

interface ClusterRun {
  readonly nodes: number;
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly statusErrors: number;
  readonly serverCpuPercent: number;
  readonly postgresCpuPercent: number;
  readonly peakLag: number;
  readonly lagAtEnd: number;
  readonly drainSeconds: number;
  readonly accepted: number;
  readonly stored: number;
}

/** Events past the profiles cursor: stored, not yet in a profile. */
async function profileLag(sql: postgres.Sql): Promise<number> {
  const [row] = await sql`
    select coalesce((select max(seq) from events), 0)
         - coalesce((select value::bigint from settings where key = 'profiles.cursor'), 0) as lag`;
  return Number(row?.lag ?? 0);
}

/** The CPU of every PostgreSQL process (the postmaster's children included), in ticks. */
function postgresTicks(): number {
  let ticks = 0;
  for (const pid of new Bun.Glob("[0-9]*").scanSync({ cwd: "/proc", onlyFiles: false })) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      if (comm === "postgres") ticks += cpuTicksOf(Number(pid));
    } catch {
      // Gone meanwhile.
    }
  }
  return ticks;
}

/** GET /event on `nodes` svc-hub nodes of one database, wrk's connections split between them. */
async function runCluster(nodes: number, databaseUrl: string): Promise<ClusterRun> {
  const services: ServiceProcess[] = [];
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    for (let node = 0; node < nodes; node += 1)
      services.push(
        await startService(ctx, join(scratch, `pg-${nodes}-${node}`), {
          SVC_STORE: "postgres",
          SVC_DATABASE_URL: databaseUrl,
        }),
      );
    const scenario = getScenario();
    const share = {
      ...ctx.wrk,
      threads: Math.max(1, ctx.wrk.threads / nodes),
      connections: ctx.wrk.connections / nodes,
    };
    ctx.log(`  ${nodes} node(s): ${ctx.wrk.warmupSeconds} s warm-up + ${ctx.wrk.seconds} s`);
    await Promise.all(services.map((service) => runWrk(service.url, scenario, share, ctx.wrk.warmupSeconds, scratch)));
    let peakLag = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peakLag = Math.max(peakLag, await profileLag(sql));
        await Bun.sleep(250);
      }
    })();
    const before = services.map((service) => cpuTicksOf(service.pid));
    const postgresBefore = postgresTicks();
    const runs: WrkResult[] = await Promise.all(
      services.map((service) => runWrk(service.url, scenario, share, ctx.wrk.seconds, scratch)),
    );
    const seconds = Math.max(...runs.map((run) => run.seconds));
    const serverCpuPercent = services.reduce(
      (sum, service, index) => sum + cpuPercent(cpuTicksOf(service.pid) - (before[index] ?? 0), seconds),
      0,
    );
    const postgresCpuPercent = cpuPercent(postgresTicks() - postgresBefore, seconds);
    sampling = false;
    await sampler;
    const lagAtEnd = await profileLag(sql);
    const drain = await drainBackground(services[0] as ServiceProcess, 180_000);
    const stats = (await (await (services[0] as ServiceProcess).admin("GET", "/admin/collect/stats")).json()) as {
      accepted: number;
    };
    const [count] = await sql`select count(*)::bigint as n from events`;
    return {
      nodes,
      requestsPerSecond: runs.reduce((sum, run) => sum + run.requestsPerSecond, 0),
      p50: Math.max(...runs.map((run) => run.latencyMs.p50)),
      p99: Math.max(...runs.map((run) => run.latencyMs.p99)),
      statusErrors: runs.reduce((sum, run) => sum + run.errors.status, 0),
      serverCpuPercent,
      postgresCpuPercent,
      peakLag,
      lagAtEnd,
      drainSeconds: drain.seconds,
      accepted: stats.accepted,
      stored: Number(count?.n ?? 0),
    };
  } finally {
    for (const service of services) await service.stop();
    await sql.end();
  }
}

function section(bare: WrkResult, runs: readonly ClusterRun[]): string {
  const rows = runs.map(
    (run) =>
      `| ${run.nodes} node${run.nodes > 1 ? "s" : ""} | ${fmt(run.requestsPerSecond)} req/s | ${ms(run.p50)} | ${ms(run.p99)} | ` +
      `${fmt((100 * run.requestsPerSecond) / bare.requestsPerSecond, 1)}% | ${fmt(run.serverCpuPercent)}% | ${fmt(run.postgresCpuPercent)}% | ` +
      `${fmt(run.peakLag)} | ${fmt(run.lagAtEnd)}, folded in ${run.drainSeconds.toFixed(1)} s | ` +
      `${run.stored === run.accepted ? `${fmt(run.stored)} of ${fmt(run.accepted)}: every 200 stored` : `**${fmt(run.stored)} stored, ${fmt(run.accepted)} answered 200**`} |`,
  );
  return [
    "## PostgreSQL",
    "",
    `\`bun bench/postgres.ts\` on ${new Date().toISOString().slice(0, 16)}Z (${cpus().length} cores, Bun ${Bun.version}): durable GET /event on`,
    "the PostgreSQL store (SVC_STORE=postgres), PostgreSQL 15 on the same machine with fsync on, the GET case's requests,",
    `wrk -t${ctx.wrk.threads} -c${ctx.wrk.connections} in all (${ctx.wrk.warmupSeconds} s warm-up + ${ctx.wrk.seconds} s), split between the nodes. Each node commits`,
    "collected events on its HTTP thread (no background thread with PostgreSQL), and the node holding the profiles lease folds",
    "them. CPU is in percent of one core over the measured run, the nodes added up and PostgreSQL's processes added up. The",
    "profile lag is the number of events stored and not yet applied to a profile, sampled every 250 ms.",
    "",
    `| Nodes | Throughput | p50 | p99 | Of bare (${fmt(bare.requestsPerSecond)} req/s) | svc-hub CPU | PostgreSQL CPU | Peak profile lag | Lag at the end | Stored |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ...rows,
    "",
  ].join("\n");
}

function writeSection(text: string): void {
  writeResultsSection("## PostgreSQL", text);
}

ensureWrk(ctx.log);
writeBenchConfig(scratch);
const server = await startPostgresServer({ durable: true });
const bareServer = await startBare(ctx);
try {
  ctx.log("bare Bun.serve");
  const bare = (await measure(ctx, bareServer, { ...getScenario(), name: "bare" })).wrk;
  ctx.log(`  ${fmt(bare.requestsPerSecond)} req/s, p99 ${bare.latencyMs.p99} ms`);
  const runs: ClusterRun[] = [];
  for (const nodes of [1, 2]) {
    const run = await runCluster(nodes, await server.createDatabase(`bench_${nodes}`));
    ctx.log(
      `    ${fmt(run.requestsPerSecond)} req/s, p99 ${run.p99} ms, peak lag ${run.peakLag}, stored ${run.stored}/${run.accepted}`,
    );
    runs.push(run);
  }
  const text = section(bare, runs);
  process.stdout.write(`\n${text}`);
  if (!quick) writeSection(text);
} finally {
  await bareServer.stop();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}
