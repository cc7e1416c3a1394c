/**
 * Case 3: the moments API for known visitors, with 1,000,000 profiles stored. The server starts once (schema,
 * configuration, engine states), stops, the profiles are seeded into its file, and it starts again; wrk asks
 * for random seeded visitors with an allowed Referer.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { compareWithBare } from "../lib/measure.ts";
import { type CaseReport, comparisonTable, fmt, ms, summaryRowOf } from "../lib/report.ts";
import { benchVisitorId, engineEnabledSince, seedProfiles } from "../lib/seed-profiles.ts";
import { type BareProcess, type BenchContext, startService } from "../lib/servers.ts";
import { luaString, type WrkScenario } from "../lib/wrk.ts";
import { browserUserAgent } from "./collect.ts";

/** Connections of the latency run. */
const lightConnections = 8;

const engineBase = "/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/";

export function momentsScenario(profiles: number): WrkScenario {
  return {
    name: "moments",
    path: `${engineBase}${benchVisitorId(1)}`,
    lua: `
local base = ${luaString(`${engineBase}bench-`)}
local headers = { ["Referer"] = "https://shop.example.com/p/1", ["Origin"] = "https://shop.example.com", ["User-Agent"] = ${luaString(browserUserAgent)} }
local thread_count = 0
setup = function(thread)
  thread_count = thread_count + 1
  thread:set("seed", thread_count * 7919)
end
init = function(args)
  math.randomseed(seed or 1)
end
request = function()
  return wrk.format("GET", base .. math.random(1, ${profiles}), headers)
end
`,
  };
}

/**
 * svc-hub's data directory `dataDir` with `profiles` seeded for the lookups: the server started once (schema,
 * configuration, engine states) and stopped, then the profiles written into its file. Resolves with the seed's seconds.
 */
export async function seedMomentsData(ctx: BenchContext, dataDir: string, profiles: number): Promise<number> {
  const first = await startService(ctx, dataDir);
  await first.stop();
  const since = await engineEnabledSince(dataDir, "acme", "main", "demo-engine");
  if (since === null) throw new Error("the server recorded no enabled-since for demo-engine");
  ctx.log(`  seeding ${fmt(profiles)} profiles`);
  let shown = 0;
  return seedProfiles(dataDir, profiles, since + 60_000, (done) => {
    if (done - shown >= profiles / 4) {
      shown = done;
      ctx.log(`    ${fmt(done)}`);
    }
  });
}

export async function momentsCase(ctx: BenchContext, bare: BareProcess): Promise<CaseReport> {
  const title = "3. Moments lookup of a known visitor";
  const profiles = ctx.quick ? 20_000 : 1_000_000;
  ctx.log(`${title} (${fmt(profiles)} profiles)`);
  const dataDir = join(ctx.scratch, "moments");
  const seedSeconds = await seedMomentsData(ctx, dataDir, profiles);
  const databaseMb = statSync(join(dataDir, "svc-hub.db")).size / 1024 / 1024;
  ctx.log(
    `  seeded in ${seedSeconds.toFixed(1)} s (${fmt(profiles / seedSeconds)} profiles/s), database ${Math.round(databaseMb)} MB`,
  );

  const service = await startService(ctx, dataDir);
  try {
    const probe = await fetch(`${service.url}${engineBase}${benchVisitorId(profiles)}`, {
      headers: { referer: "https://shop.example.com/" },
    });
    const probeBody = await probe.text();
    if (probe.status !== 200 || !probeBody.includes("Purchasers"))
      throw new Error(`a seeded visitor is not found: ${probe.status} ${probeBody}`);
    const comparison = await compareWithBare(ctx, service, bare, momentsScenario(profiles));
    // The latency of a lookup itself, with little queueing: at 64 connections a request mostly waits for the 63 before it.
    const light = await compareWithBare({ ...ctx, wrk: { ...ctx.wrk, connections: lightConnections } }, service, bare, {
      ...momentsScenario(profiles),
      name: "moments-light",
    });
    const { wrk } = comparison.service;
    const lightWrk = light.service.wrk;
    return {
      id: "moments",
      title,
      outcome: "measured",
      rows: [
        summaryRowOf(`${title} (${fmt(profiles)} profiles, ${ctx.wrk.connections} connections)`, comparison),
        summaryRowOf(`${title} (${fmt(profiles)} profiles, ${lightConnections} connections)`, light),
      ],
      details: [
        `At ${ctx.wrk.connections} connections:`,
        "",
        ...comparisonTable(comparison),
        "",
        `At ${lightConnections} connections (the latency of a lookup with little queueing):`,
        "",
        ...comparisonTable(light),
        "",
        `- ${fmt(profiles)} profiles (and as many visitor ids) seeded into the libSQL file in ${seedSeconds.toFixed(1)} s ` +
          `(${fmt(profiles / seedSeconds)} a second, transactions of 10,000; database ${Math.round(databaseMb)} MB), then the server started on it.`,
        `- Each request asks for a random seeded visitor (\`${engineBase}bench-<n>\`) of engine demo-engine with an allowed Referer; ` +
          `${wrk.errors.status + lightWrk.errors.status === 0 ? "every answer was 200 with the visitor's data" : `${fmt(wrk.errors.status + lightWrk.errors.status)} answers were 400 or above`}.`,
      ],
      targets: [
        {
          goal: `Moments p99 under 5 ms with ${fmt(profiles)} profiles (${lightConnections} connections)`,
          met: lightWrk.latencyMs.p99 < 5 && lightWrk.errors.status === 0,
          found: ms(lightWrk.latencyMs.p99),
        },
        {
          goal: `Moments p99 under 5 ms with ${fmt(profiles)} profiles (${ctx.wrk.connections} connections)`,
          met: wrk.latencyMs.p99 < 5 && wrk.errors.status === 0,
          found: ms(wrk.latencyMs.p99),
        },
      ],
    };
  } finally {
    await service.stop();
  }
}
