/**
 * `bun bench/postgres.ts`: durable GET /event on the PostgreSQL store (docs/several-nodes.md), on one node and
 * on two nodes of one database, against the bare Bun.serve in the same run, with PostgreSQL on the same
 * machine (durable: fsync on). The GET case's requests (bench/cases/collect.ts); on two nodes, two wrk
 * processes share the connections, one per node. While the load runs, the profile lag (events stored but not
 * yet applied to their visitors' profiles) is sampled from the database every 250 ms; after it, the time
 * POST /admin/wait takes to fold what is left. Every 200 must be a stored event.
 *
 * Then the CPU an event costs (docs/scaling.md's model): two nodes of a fresh database under a fixed load (hey at
 * 500 events a second to each, each event a new visitor, the fold's dearest case), each process's CPU ticks from
 * the load's start until POST /admin/wait returned, over the events stored: a node collecting, the fold on the
 * node that holds the profiles lease, and PostgreSQL's processes; and the bytes the events table takes an event.
 *
 *   bun bench/postgres.ts                 # 3 s warm-up + 12 s per load, 20 s of fixed load; writes bench/RESULTS.md
 *                                         # "## PostgreSQL" and "## PostgreSQL: the CPU an event"
 *   bun bench/postgres.ts --quick         # 1 s + 3 s, 4 s of fixed load, printed only
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { startPostgresServer } from "../tools/postgres-server.ts";
import { getScenario, getScenarioRequests } from "./cases/collect.ts";
import { capacityFor, type EventCosts, microsPerEvent, splitNodeCost } from "./lib/event-cost.ts";
import { ensureHey, runHey } from "./lib/hey.ts";
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

/** The fixed load of the cost run: events a second to each of the two nodes, and for how long. */
const costLoad = { ratePerNode: 500, connections: 16, seconds: quick ? 4 : 20, idleSeconds: quick ? 2 : 5 } as const;

interface CostRun {
  readonly costs: EventCosts;
  readonly events: number;
  readonly seconds: number;
  /** Each node's CPU an event, its idle CPU taken off, and as measured. */
  readonly nodeMicros: readonly (number | null)[];
  readonly grossNodeMicros: readonly (number | null)[];
  /** Percent of a core with no load: each node's, then PostgreSQL's. */
  readonly idleCpuPercent: readonly number[];
  readonly postgresCpuPercent: number;
  /** Events a second the nodes answered during the load, together. */
  readonly reached: number;
}

/** Two nodes of a fresh database at a fixed rate: the CPU of each process until the fold is done, an event. */
async function measureCost(databaseUrl: string): Promise<CostRun> {
  const services: ServiceProcess[] = [];
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    for (let node = 0; node < 2; node += 1)
      services.push(
        await startService(ctx, join(scratch, `pg-cost-${node}`), {
          SVC_STORE: "postgres",
          SVC_DATABASE_URL: databaseUrl,
        }),
      );
    // The GET case's pixel without its visitor ID: every event a new visitor, so every fold writes a new profile.
    const first = getScenarioRequests()[0] as ReturnType<typeof getScenarioRequests>[number];
    const path = first.path.replace(/&svc_visitor_id=[^&]*/, "");
    const request = { method: "GET" as const, path, headers: first.headers };
    const load = { rate: costLoad.ratePerNode, connections: costLoad.connections, seconds: costLoad.seconds };
    ctx.log(`  warm-up: 1 s at ${costLoad.ratePerNode} req/s a node`);
    await Promise.all(services.map((service) => runHey(service.url, request, { ...load, seconds: 1 })));
    await drainBackground(services[0] as ServiceProcess, 60_000);
    // What the processes spend with no load (the nodes' looks at each other, timers, PostgreSQL's own work), a
    // second: taken off the span below, so that an event's cost is what the event adds.
    const idleNodes = services.map((service) => cpuTicksOf(service.pid));
    const idlePostgres = postgresTicks();
    await Bun.sleep(costLoad.idleSeconds * 1000);
    const idleRate = (spent: number) => spent / costLoad.idleSeconds;
    const nodeIdleRates = services.map((service, index) => idleRate(cpuTicksOf(service.pid) - (idleNodes[index] ?? 0)));
    const postgresIdleRate = idleRate(postgresTicks() - idlePostgres);
    const [countBefore] = await sql`select count(*)::bigint as n from events`;
    const ticksBefore = services.map((service) => cpuTicksOf(service.pid));
    const postgresBefore = postgresTicks();
    const started = performance.now();
    ctx.log(
      `  ${costLoad.seconds} s at ${costLoad.ratePerNode} req/s to each of 2 nodes (hey -c${costLoad.connections}), then the fold`,
    );
    // Each node's own 200s (the collection counters of GET /admin/collect/stats are the cluster's).
    const answered = await Promise.all(services.map((service) => runHey(service.url, request, load)));
    await drainBackground(services[0] as ServiceProcess, 180_000);
    const seconds = (performance.now() - started) / 1000;
    const gross = services.map((service, index) => cpuTicksOf(service.pid) - (ticksBefore[index] ?? 0));
    const ticks = gross.map((spent, index) => Math.max(0, spent - (nodeIdleRates[index] ?? 0) * seconds));
    const postgresGross = postgresTicks() - postgresBefore;
    const postgresSpent = Math.max(0, postgresGross - postgresIdleRate * seconds);
    const [countAfter] = await sql`select count(*)::bigint as n from events`;
    const events = Number(countAfter?.n ?? 0) - Number(countBefore?.n ?? 0);
    const perNode = answered.map((run) => run.okAnswers);
    const split = splitNodeCost([
      { ticks: ticks[0] ?? 0, events: perNode[0] ?? 0 },
      { ticks: ticks[1] ?? 0, events: perNode[1] ?? 0 },
    ]);
    // The events with their indexes and their entries in the per-visitor index built off the commit path.
    const [size] = await sql`select pg_total_relation_size('events')::bigint
        + pg_total_relation_size('event_visitors')::bigint as bytes, count(*)::bigint as n from events`;
    return {
      costs: {
        collectMicros: split?.collect ?? Number.NaN,
        foldMicros: split?.fold ?? Number.NaN,
        postgresMicros: microsPerEvent(postgresSpent, events) ?? Number.NaN,
        eventBytes: Number(size?.bytes ?? 0) / Math.max(1, Number(size?.n ?? 0)),
      },
      events,
      seconds,
      nodeMicros: ticks.map((spent, index) => microsPerEvent(spent, perNode[index] ?? 0)),
      grossNodeMicros: gross.map((spent, index) => microsPerEvent(spent, perNode[index] ?? 0)),
      idleCpuPercent: [...nodeIdleRates.map((rate) => cpuPercent(rate, 1)), cpuPercent(postgresIdleRate, 1)],
      postgresCpuPercent: cpuPercent(postgresGross, seconds),
      reached: perNode.reduce((sum, count) => sum + count, 0) / costLoad.seconds,
    };
  } finally {
    for (const service of services) await service.stop();
    await sql.end();
  }
}

function costSection(run: CostRun): string {
  const { costs } = run;
  const rates = [10_000, 100_000, 1_000_000];
  return [
    "## PostgreSQL: the CPU an event",
    "",
    `\`bun bench/postgres.ts\` on ${new Date().toISOString().slice(0, 16)}Z (${cpus().length} cores, ${cpus()[0]?.model.trim() ?? "unknown CPU"}, Bun ${Bun.version}, load average ${loadavg()[0]?.toFixed(2)} at the end):`,
    `two nodes of a fresh database, hey at ${costLoad.ratePerNode} GET /event a second to each for ${costLoad.seconds} s (each event a new visitor, so each`,
    "fold writes a new profile: its dearest case), every process's CPU ticks from the load's start until POST /admin/wait",
    `returned (${run.seconds.toFixed(1)} s), less what each process spends idle (measured for ${costLoad.idleSeconds} s before the load: ${run.idleCpuPercent.map((value) => `${fmt(value, 1)}%`).join(", ")} of a core`,
    `for the two nodes and PostgreSQL), over the ${fmt(run.events)} events stored (${fmt(run.reached)} a second reached of ${fmt(2 * costLoad.ratePerNode)} asked).`,
    "The node that spent less an event only collected; the other also folded every event into its profile (it holds the",
    "profiles lease). PostgreSQL (fsync on) ran on the same machine.",
    "",
    "| | µs of CPU an event |",
    "|---|---:|",
    `| a node collecting (HTTP, the use case, the commit's share) | ${fmt(costs.collectMicros)} |`,
    `| the profile fold, on the lease holder alone | ${fmt(costs.foldMicros)} |`,
    `| PostgreSQL, every backend together (${fmt(run.postgresCpuPercent)}% of a core over the span) | ${fmt(costs.postgresMicros)} |`,
    "",
    `The nodes measured ${run.nodeMicros.map((micros) => fmt(micros)).join(" and ")} µs an event each (${run.grossNodeMicros.map((micros) => fmt(micros)).join(" and ")} with their idle CPU). The events table with its indexes and the per-visitor index take ${fmt(costs.eventBytes)} bytes an event.`,
    "",
    "What a rate needs with these costs (cores kept at 70% busy; the fold runs on one thread of one node):",
    "",
    "| Events a second | Node cores | Fold (cores of one thread) | PostgreSQL cores | Events table a day |",
    "|---:|---:|---:|---:|---:|",
    ...rates.map((rate) => {
      const need = capacityFor(rate, costs);
      return `| ${fmt(rate)} | ${fmt(need.nodeCores, 1)} | ${fmt(need.foldCores, 2)} | ${fmt(need.postgresCores, 1)} | ${fmt(need.gibPerDay)} GiB |`;
    }),
    "",
  ].join("\n");
}

function writeSection(text: string): void {
  writeResultsSection("## PostgreSQL", text);
}

ensureWrk(ctx.log);
ensureHey(ctx.log);
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
  ctx.log("the CPU an event");
  const cost = costSection(await measureCost(await server.createDatabase("bench_cost")));
  process.stdout.write(`\n${text}\n${cost}`);
  if (!quick) {
    writeSection(text);
    writeResultsSection("## PostgreSQL: the CPU an event", cost);
  }
} finally {
  await bareServer.stop();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}
