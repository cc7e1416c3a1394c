/**
 * The processes a bench case measures: svc-hub as `npm start` runs it (tools/spawn-server.ts, libSQL in a
 * data directory of its own, the configuration below), and the bare Bun.serve of bench/bare-server.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { demoConfigPath } from "../../adapters/config/demo-config.ts";
import { spawnServer } from "../../tools/spawn-server.ts";
import type { WrkSettings } from "./wrk.ts";

export interface BenchContext {
  readonly root: string;
  /** A temporary directory of this run: data directories, scripts, generated files. */
  readonly scratch: string;
  readonly quick: boolean;
  readonly wrk: WrkSettings;
  log(line: string): void;
}

/**
 * The collection endpoint allows 100 events per second per account by default (DEC-COL-07); the bench
 * raises it (limits.collectEventsPerSecond) so that it measures the service rather than the limit.
 */
export const benchEventsPerSecond = 10_000_000;

/** Likewise the bytes of events one source may send per second (limits.collectBytesPerSourcePerSecond, 8 MiB). */
export const benchBytesPerSourcePerSecond = 1024 ** 4;

/** The limits the bench raises, over the configuration's own. */
export const benchCollectLimits = {
  collectEventsPerSecond: benchEventsPerSecond,
  collectBytesPerSourcePerSecond: benchBytesPerSourcePerSecond,
};

/** The demo configuration (adapters/config/demo.config.json) with the collection limits raised. */
export function writeBenchConfig(scratch: string): string {
  const demo = JSON.parse(readFileSync(demoConfigPath, "utf8")) as Record<string, unknown>;
  const config = { ...demo, limits: { ...((demo.limits as object | undefined) ?? {}), ...benchCollectLimits } };
  const path = join(scratch, "svc.config.json");
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}

export interface ServiceProcess {
  readonly url: string;
  readonly pid: number;
  readonly adminToken: string;
  readonly dataDir: string;
  /** An admin API call with the token. */
  admin(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response>;
  /** SIGTERM, then SIGKILL after `graceMs`; the exit code. */
  stop(graceMs?: number): Promise<number>;
}

/** svc-hub on a free port, keeping its data in `dataDir` (created if missing); `env` adds to its environment. */
export async function startService(
  ctx: BenchContext,
  dataDir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<ServiceProcess> {
  mkdirSync(dataDir, { recursive: true });
  const adminToken = `bench-${crypto.randomUUID()}`;
  const server = await spawnServer({
    root: ctx.root,
    dataDir,
    adminToken,
    env: { SVC_CONFIG: join(ctx.scratch, "svc.config.json"), ...env },
    startTimeoutMs: 120_000,
    keepOutput: false,
  });
  return {
    url: server.url,
    pid: server.pid,
    adminToken,
    dataDir,
    admin(method, path, body, signal) {
      return fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${adminToken}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      });
    },
    stop: (graceMs = 10_000) => server.stop(graceMs),
  };
}

export interface BareProcess {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** A process that prints `listening <port>` once it listens on 127.0.0.1 (bench/bare-server.ts, bench/ceiling.ts serve). */
export async function startListening(command: readonly string[], cwd: string): Promise<BareProcess> {
  const child = Bun.spawn([...command], { cwd, stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 30_000;
  while (!/listening (\d+)/.test(text)) {
    if (Date.now() > deadline) throw new Error(`${command.join(" ")} did not start`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`${command.join(" ")} exited: ${text}`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const port = /listening (\d+)/.exec(text)?.[1];
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

/** bench/bare-server.ts on a free port. */
export function startBare(ctx: BenchContext): Promise<BareProcess> {
  return startListening(
    [join(ctx.root, "node_modules", ".bin", "bun"), join(ctx.root, "bench", "bare-server.ts")],
    ctx.root,
  );
}

/**
 * The durable ceiling (bench/ceiling.ts `serve durable`): the collection use case and a flat-file append with one
 * fdatasync a group, appending to `file` (in the run's scratch directory, on the disk svc-hub's data is on).
 */
export function startCeiling(ctx: BenchContext, file: string): Promise<BareProcess> {
  return startListening(
    [join(ctx.root, "node_modules", ".bin", "bun"), join(ctx.root, "bench", "ceiling.ts"), "serve", "durable", file],
    ctx.root,
  );
}

/**
 * POST /admin/wait, timed: how long the background work left by a case (profile updates above all) takes
 * to finish, and how much of it there was. Only the work due now (`scheduled: false`): a data layer change's
 * publishing delay is the timing preset's, not work. Gives up after `timeoutMs` (the server carries on);
 * complete unless it did (504).
 */
export async function drainBackground(
  service: ServiceProcess,
  timeoutMs: number,
): Promise<{ seconds: number; complete: boolean; processed: Record<string, number> }> {
  const started = performance.now();
  try {
    const answer = await service.admin(
      "POST",
      "/admin/wait",
      { timeoutMs, scheduled: false },
      AbortSignal.timeout(timeoutMs + 5_000),
    );
    const body = (await answer.json()) as { processed?: Record<string, number> };
    return { seconds: (performance.now() - started) / 1000, complete: answer.ok, processed: body.processed ?? {} };
  } catch {
    return { seconds: (performance.now() - started) / 1000, complete: false, processed: {} };
  }
}

/** POST /v1/login as the demo user: the utk and the JSESSIONID cookie (as a Cookie header). */
export async function logIn(baseUrl: string): Promise<{ utk: string; cookie: string }> {
  const answer = await fetch(`${baseUrl}/v1/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: "demo@example.com", password: "demo-password-1" }),
  });
  if (!answer.ok) throw new Error(`login failed: ${answer.status} ${await answer.text()}`);
  const { utk } = (await answer.json()) as { utk: string };
  const session = answer.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0] ?? "")
    .find((cookie) => cookie.startsWith("JSESSIONID="));
  if (!session) throw new Error("login answered no JSESSIONID cookie");
  return { utk, cookie: session };
}
