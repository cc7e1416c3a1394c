/**
 * Runs hey (Debian's, 0.1.4) at a fixed rate and reads its summary: the open-loop load of the collection cases.
 * hey's `-q` is a rate for each worker (`-c` of them), each paced by its own ticker: the rate asked is -c × -q, and
 * a worker whose answer comes after its next tick skips that tick, so a server that cannot keep up shows as a rate
 * reached below the one asked (which the summary's Requests/sec says), with latencies from each request's send.
 */
import { spawnSync } from "node:child_process";

export interface HeyLoad {
  /** Requests a second, all workers together. */
  readonly rate: number;
  readonly connections: number;
  readonly seconds: number;
}

/** One request, sent again and again (hey has no list of requests). */
export interface HeyRequest {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface HeyResult {
  readonly seconds: number;
  /** Answers a second over the whole run (hey's Requests/sec). */
  readonly requestsPerSecond: number;
  readonly latencyMs: {
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly mean: number;
    readonly max: number;
  };
  readonly statusCounts: Readonly<Record<number, number>>;
  /** Answers with a status below 400. */
  readonly okAnswers: number;
  /** Answers with a status of 400 or above. */
  readonly refused: number;
  /** Requests that got no answer (refused connections, timeouts). */
  readonly errors: number;
}

/** hey's arguments for a load (the URL and the request's own flags come after). */
export function heyArgs(load: HeyLoad): string[] {
  const perWorker = load.rate / load.connections;
  return ["-z", `${load.seconds}s`, "-c", String(load.connections), "-q", String(perWorker), "-t", "10"];
}

/** Reads hey's summary (its default output). */
export function parseHeyOutput(output: string): HeyResult {
  const seconds = (label: string) => {
    const match = new RegExp(`^\\s*${label}:\\s+([\\d.]+) secs`, "m").exec(output);
    return match ? Number(match[1]) : null;
  };
  const total = seconds("Total");
  const rateMatch = /^\s*Requests\/sec:\s+([\d.]+)/m.exec(output);
  if (total === null || !rateMatch) throw new Error(`hey printed no summary:\n${output.slice(-2000)}`);
  const percentile = (p: number) => {
    const match = new RegExp(`^\\s*${p}% in ([\\d.]+) secs`, "m").exec(output);
    return match ? Number(match[1]) * 1000 : Number.NaN;
  };
  const ms = (value: number | null) => (value === null ? Number.NaN : Math.round(value * 1e7) / 1e4);
  const section = (heading: string) => {
    const start = output.indexOf(heading);
    if (start < 0) return "";
    const rest = output.slice(start + heading.length);
    const end = rest.search(/\n\s*\n\s*\S/);
    return end < 0 ? rest : rest.slice(0, end);
  };
  const statusCounts: Record<number, number> = {};
  for (const match of section("Status code distribution:").matchAll(/\[(\d+)\]\s+(\d+) responses/g))
    statusCounts[Number(match[1])] = Number(match[2]);
  let errors = 0;
  for (const match of section("Error distribution:").matchAll(/^\s*\[(\d+)\]/gm)) errors += Number(match[1]);
  const answers = Object.entries(statusCounts);
  return {
    seconds: total,
    requestsPerSecond: Number(rateMatch[1]),
    latencyMs: {
      p50: Math.round(percentile(50) * 1e4) / 1e4,
      p90: Math.round(percentile(90) * 1e4) / 1e4,
      p99: Math.round(percentile(99) * 1e4) / 1e4,
      mean: ms(seconds("Average")),
      max: ms(seconds("Slowest")),
    },
    statusCounts,
    okAnswers: answers.filter(([status]) => Number(status) < 400).reduce((sum, [, count]) => sum + count, 0),
    refused: answers.filter(([status]) => Number(status) >= 400).reduce((sum, [, count]) => sum + count, 0),
    errors,
  };
}

/** The Debian package's version, or null when hey is not on the PATH (hey has no --version: dpkg says). */
export function heyVersion(): string | null {
  if (spawnSync("hey", ["-n", "0"], { encoding: "utf8" }).error) return null;
  const dpkg = spawnSync("dpkg-query", ["-W", "-f", "$" + "{Version}", "hey"], { encoding: "utf8" });
  return dpkg.status === 0 && dpkg.stdout.trim() ? `hey ${dpkg.stdout.trim()}` : "hey";
}

/** hey from Debian when it is missing, as ensureWrk installs wrk. */
export function ensureHey(log: (line: string) => void): string {
  const found = heyVersion();
  if (found) return found;
  log("hey is not installed: apt-get install -y hey");
  const install = () =>
    spawnSync("apt-get", ["install", "-y", "hey"], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  if (install().status !== 0) {
    spawnSync("apt-get", ["update"], { stdio: "inherit" });
    install();
  }
  const installed = heyVersion();
  if (!installed)
    throw new Error(
      "hey is not installed and apt-get could not install it; install it (apt-get install hey) and run again",
    );
  return installed;
}

/** One hey run of `load` against `baseUrl` with `request`. */
export async function runHey(baseUrl: string, request: HeyRequest, load: HeyLoad): Promise<HeyResult> {
  const args = [...heyArgs(load), "-m", request.method];
  // hey sends its own Content-Type (text/html) unless -T names one.
  for (const [name, value] of Object.entries(request.headers))
    args.push(...(name.toLowerCase() === "content-type" ? ["-T", value] : ["-H", `${name}: ${value}`]));
  if (request.body !== undefined) args.push("-d", request.body);
  const child = Bun.spawn(["hey", ...args, `${baseUrl}${request.path}`], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`hey exited with ${code}:\n${stdout}\n${stderr}`);
  return parseHeyOutput(stdout);
}
