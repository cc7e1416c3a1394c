/**
 * One load measured twice in the same run: against the bare Bun.serve (the machine's ceiling) and against
 * svc-hub, each after a warm-up, with the same wrk settings. The server's CPU is that of the measured run
 * (utime + stime before and after); its peak memory is VmHWM, the peak of the process so far.
 */

import { type HeyLoad, type HeyRequest, type HeyResult, runHey } from "./hey.ts";
import { cpuPercent, cpuTicksOf, peakRssMbOf } from "./proc.ts";
import type { BenchContext } from "./servers.ts";
import { runWrk, type WrkResult, type WrkScenario } from "./wrk.ts";

export interface Target {
  readonly url: string;
  readonly pid: number;
}

export interface MeasuredRun {
  readonly wrk: WrkResult;
  /** Server CPU during the measured run, percent of one core. */
  readonly serverCpuPercent: number;
  readonly serverPeakRssMb: number | null;
  /** wrk requests of the warm-up (they reach the server too). */
  readonly warmupRequests: number;
  readonly warmupOkAnswers: number;
}

export interface Comparison {
  readonly scenario: string;
  readonly service: MeasuredRun;
  readonly bare: MeasuredRun;
  /** service requests per second / bare requests per second. */
  readonly ratio: number;
}

export async function measure(ctx: BenchContext, target: Target, scenario: WrkScenario): Promise<MeasuredRun> {
  const warmup = await runWrk(
    target.url,
    { ...scenario, name: `${scenario.name}-warmup` },
    ctx.wrk,
    ctx.wrk.warmupSeconds,
    ctx.scratch,
  );
  const before = cpuTicksOf(target.pid);
  const wrk = await runWrk(target.url, scenario, ctx.wrk, ctx.wrk.seconds, ctx.scratch);
  const after = cpuTicksOf(target.pid);
  return {
    wrk,
    serverCpuPercent: cpuPercent(after - before, wrk.seconds),
    serverPeakRssMb: peakRssMbOf(target.pid),
    warmupRequests: warmup.requests,
    warmupOkAnswers: warmup.okAnswers,
  };
}

/** The bare server first, then svc-hub, with the same scenario. */
export async function compareWithBare(
  ctx: BenchContext,
  service: Target,
  bare: Target,
  scenario: WrkScenario,
): Promise<Comparison> {
  ctx.log(`  ${scenario.name}: bare Bun.serve, ${ctx.wrk.warmupSeconds} s warm-up + ${ctx.wrk.seconds} s`);
  const bareRun = await measure(ctx, bare, { ...scenario, name: `${scenario.name}-bare` });
  ctx.log(`    ${Math.round(bareRun.wrk.requestsPerSecond)} req/s, p99 ${bareRun.wrk.latencyMs.p99} ms`);
  ctx.log(`  ${scenario.name}: svc-hub, ${ctx.wrk.warmupSeconds} s warm-up + ${ctx.wrk.seconds} s`);
  const serviceRun = await measure(ctx, service, scenario);
  ctx.log(
    `    ${Math.round(serviceRun.wrk.requestsPerSecond)} req/s, p99 ${serviceRun.wrk.latencyMs.p99} ms, ${serviceRun.wrk.errors.status} answers >= 400`,
  );
  return {
    scenario: scenario.name,
    service: serviceRun,
    bare: bareRun,
    ratio: bareRun.wrk.requestsPerSecond > 0 ? serviceRun.wrk.requestsPerSecond / bareRun.wrk.requestsPerSecond : 0,
  };
}

export interface OpenLoopRun {
  readonly hey: HeyResult;
  /** Server CPU during the run, percent of one core. */
  readonly serverCpuPercent: number;
  readonly serverPeakRssMb: number | null;
}

/** One open-loop run (hey at a fixed rate), with no warm-up of its own: it follows a closed-loop run. */
export async function measureOpen(target: Target, request: HeyRequest, load: HeyLoad): Promise<OpenLoopRun> {
  const before = cpuTicksOf(target.pid);
  const hey = await runHey(target.url, request, load);
  const after = cpuTicksOf(target.pid);
  return {
    hey,
    serverCpuPercent: cpuPercent(after - before, hey.seconds),
    serverPeakRssMb: peakRssMbOf(target.pid),
  };
}
