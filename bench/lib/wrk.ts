/**
 * Runs wrk (Debian's, 4.x) with a Lua script and reads what it measured. Every script ends with the same
 * `done` hook, which prints one line `BENCH_JSON {...}`: requests, duration, errors, latency percentiles and
 * wrk's own CPU time (read from /proc/self/stat, so readers see what the load generator took of the cores).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { clockTicksPerSecond } from "./proc.ts";

export interface WrkSettings {
  readonly threads: number;
  readonly connections: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
}

/** A load: Lua that defines `request` (and may define `init`), against a base URL and a first path. */
export interface WrkScenario {
  readonly name: string;
  readonly path: string;
  readonly lua: string;
}

export interface WrkResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  /** Answers with a status below 400 (wrk counts 400 and above as status errors). */
  readonly okAnswers: number;
  readonly errors: {
    readonly connect: number;
    readonly read: number;
    readonly write: number;
    readonly status: number;
    readonly timeout: number;
  };
  readonly latencyMs: {
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly max: number;
    readonly mean: number;
  };
  /** wrk's own CPU over the run, in percent of one core. */
  readonly wrkCpuPercent: number;
}

/** The `done` hook every script ends with; fields 14 and 15 of /proc/self/stat are utime and stime. */
export const reportingLua = `
done = function(summary, latency, requests)
  local f = io.open("/proc/self/stat", "r")
  local stat = f:read("*a")
  f:close()
  local fields = {}
  for word in stat:match("%) (.*)$"):gmatch("%S+") do fields[#fields + 1] = word end
  io.write(string.format('BENCH_JSON {"requests":%d,"durationUs":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f},"cpuTicks":%d}\\n',
    summary.requests, summary.duration, summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean, tonumber(fields[12]) + tonumber(fields[13])))
end
`;

/** A Lua string literal of ASCII text. */
export function luaString(text: string): string {
  if (!/^[\x20-\x7e\n\r\t]*$/.test(text))
    throw new Error(`only printable ASCII goes into Lua here: ${text.slice(0, 60)}`);
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")}"`;
}

/**
 * Lua that sends a fixed list of requests round robin, each thread from its own offset. The requests are
 * formatted once per thread in `init`, so wrk spends its time sending, not building requests.
 */
export function roundRobinLua(
  requests: ReadonlyArray<{ method: string; path: string; headers?: Record<string, string>; body?: string }>,
): string {
  const entries = requests.map((request) => {
    const headers = Object.entries(request.headers ?? {})
      .map(([name, value]) => `[${luaString(name)}] = ${luaString(value)}`)
      .join(", ");
    return `  { ${luaString(request.method)}, ${luaString(request.path)}, { ${headers} }, ${request.body === undefined ? "nil" : luaString(request.body)} },`;
  });
  return `
local list = {
${entries.join("\n")}
}
local formatted = {}
local next_index = 1
local thread_count = 0
setup = function(thread)
  thread_count = thread_count + 1
  thread:set("offset", thread_count * 7919)
end
init = function(args)
  for i, entry in ipairs(list) do formatted[i] = wrk.format(entry[1], entry[2], entry[3], entry[4]) end
  next_index = ((offset or 0) % #formatted) + 1
end
request = function()
  local chosen = formatted[next_index]
  next_index = (next_index % #formatted) + 1
  return chosen
end
`;
}

interface RawReport {
  requests: number;
  durationUs: number;
  errors: WrkResult["errors"];
  latencyUs: { p50: number; p90: number; p99: number; max: number; mean: number };
  cpuTicks: number;
}

/** Reads the `BENCH_JSON` line of wrk's output (the last one, if several). */
export function parseWrkOutput(output: string): WrkResult {
  const line = output
    .split("\n")
    .reverse()
    .find((entry) => entry.startsWith("BENCH_JSON "));
  if (!line) throw new Error(`wrk printed no BENCH_JSON line:\n${output.slice(-2000)}`);
  const raw = JSON.parse(line.slice("BENCH_JSON ".length)) as RawReport;
  const seconds = raw.durationUs / 1e6;
  const ms = (us: number) => Math.round(us) / 1000;
  return {
    requests: raw.requests,
    seconds,
    requestsPerSecond: seconds > 0 ? raw.requests / seconds : 0,
    okAnswers: raw.requests - raw.errors.status,
    errors: raw.errors,
    latencyMs: {
      p50: ms(raw.latencyUs.p50),
      p90: ms(raw.latencyUs.p90),
      p99: ms(raw.latencyUs.p99),
      max: ms(raw.latencyUs.max),
      mean: ms(raw.latencyUs.mean),
    },
    wrkCpuPercent: seconds > 0 ? (raw.cpuTicks / clockTicksPerSecond / seconds) * 100 : 0,
  };
}

/** The Debian package's version line, or null when wrk is not on the PATH. */
export function wrkVersion(): string | null {
  const run = spawnSync("wrk", ["--version"], { encoding: "utf8" });
  if (run.error) return null;
  return `${run.stdout}${run.stderr}`.split("\n")[0]?.trim() || "wrk";
}

/** wrk from Debian when it is missing (the bench runs as root on the machines it is meant for). */
export function ensureWrk(log: (line: string) => void): string {
  const found = wrkVersion();
  if (found) return found;
  log("wrk is not installed: apt-get install -y wrk");
  const install = () =>
    spawnSync("apt-get", ["install", "-y", "wrk"], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  if (install().status !== 0) {
    spawnSync("apt-get", ["update"], { stdio: "inherit" });
    install();
  }
  const installed = wrkVersion();
  if (!installed)
    throw new Error(
      "wrk is not installed and apt-get could not install it; install it (apt-get install wrk) and run again",
    );
  return installed;
}

/** One wrk run of `seconds` against `baseUrl`; the script is written to `scratchDir`. */
export async function runWrk(
  baseUrl: string,
  scenario: WrkScenario,
  settings: WrkSettings,
  seconds: number,
  scratchDir: string,
): Promise<WrkResult> {
  const script = join(scratchDir, `${scenario.name}.lua`);
  writeFileSync(script, `${scenario.lua}\n${reportingLua}`);
  const child = Bun.spawn(
    [
      "wrk",
      `-t${settings.threads}`,
      `-c${settings.connections}`,
      `-d${seconds}s`,
      "--timeout",
      "10s",
      "-s",
      script,
      `${baseUrl}${scenario.path}`,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`wrk exited with ${code}:\n${stdout}\n${stderr}`);
  return parseWrkOutput(stdout);
}
