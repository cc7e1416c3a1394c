/**
 * Second probe, finding 2 (SECURITY.md, row 14): a login flood from one client address must not slow another
 * address's logins. 70 keep-alive connections from 127.0.0.2 send wrong secrets for made-up names without
 * pause (reliability/login-flooder.ts, a process of its own), while four users log in from 127.0.0.1 again and
 * again; the p99 of those logins must stay within 1 s, on a real server process on the libSQL store and on
 * PostgreSQL, for the v1 login and the v2 token request alike. The flood is kept up during the whole
 * measurement (all its requests in flight at every report it makes), and the same logins are timed unflooded
 * first and printed beside, so that a machine too busy to answer even those within the bound shows as such.
 * Loopback only; about 35 s a case. */
import { afterAll, afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { demoConfigPath } from "../adapters/config/demo-config.ts";
import { type PostgresServer, startPostgresServer } from "../tools/postgres-server.ts";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = `login-flood-${crypto.randomUUID()}`;
const floodConnections = 70;
/** The flooding client's address; the server listens on 127.0.0.1, and every 127/8 address reaches it. */
const floodAddress = "127.0.0.2";
/** Logins timed at once from the other address (127.0.0.1), each loop one login after another. */
const loginLoops = 4;
const unfloodedMs = 3_000;
const floodedMs = 12_000;
/** The bound the issue sets: the p99 of the other address's logins under the flood. */
const maxP99Ms = 1_000;

interface LoginRoute {
  readonly path: string;
  /** The form field of the secret, and the users' right one. */
  readonly field: string;
  readonly secret: string;
}

const routes: readonly LoginRoute[] = [
  { path: "/v1/login", field: "password", secret: "demo-password-1" },
  { path: "/v2/auth", field: "key", secret: "demo-key-0001-acme" },
];

/** The user each loop logs in as: one a loop, so that the loops do not take turns on one user's sessions. */
const userOfLoop = (loop: number) => `user-${loop}@example.com`;

/**
 * acme/main and one user a loop, each with the demo user's password and API key (their hashes, from the demo
 * configuration), written into `dataDir`; answers its path.
 */
function writeConfig(dataDir: string): string {
  const demo = JSON.parse(readFileSync(demoConfigPath, "utf8")) as {
    users: Array<{ email: string; password: { hash: string } }>;
    apiKeys: Array<{ user: string; key: { hash: string } }>;
  };
  const passwordHash = demo.users.find((user) => user.email === "demo@example.com")?.password.hash;
  const keyHash = demo.apiKeys.find((key) => key.user === "demo@example.com")?.key.hash;
  if (!passwordHash || !keyHash) throw new Error("the demo configuration has no demo@example.com with a key");
  const loops = Array.from({ length: loginLoops }, (_, loop) => userOfLoop(loop));
  const path = join(dataDir, "svc.config.json");
  writeFileSync(
    path,
    JSON.stringify({
      accounts: [{ name: "acme", profiles: [{ name: "main" }] }],
      users: loops.map((email) => ({
        email,
        password: { hash: passwordHash },
        grants: [{ account: "acme", profiles: "*" }],
      })),
      apiKeys: loops.map((email, loop) => ({ id: `key-${loop}`, user: email, key: { hash: keyHash } })),
    }),
  );
  return path;
}

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let postgresServer: PostgresServer | null = null;
afterAll(async () => {
  await postgresServer?.stop();
});

type StoreName = "libSQL" | "PostgreSQL";

async function start(store: StoreName): Promise<SpawnedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-login-flood-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = { SVC_CONFIG: writeConfig(dataDir) };
  if (store === "PostgreSQL") {
    postgresServer ??= await startPostgresServer();
    env.SVC_STORE = "postgres";
    env.SVC_DATABASE_URL = await postgresServer.createDatabase(`login_flood_${crypto.randomUUID().slice(0, 8)}`);
  }
  // The request log stays on, as it is by default, but its output is not kept here.
  const server = await spawnServer({ root, dataDir, adminToken, env, keepOutput: false });
  cleanups.push(() => server.stop());
  return server;
}

/** One login of a loop's user from 127.0.0.1: how long its answer took, which must be a success. */
async function timedLogin(url: string, route: LoginRoute, loop: number): Promise<number> {
  const started = performance.now();
  const answer = await fetch(`${url}${route.path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: userOfLoop(loop), [route.field]: route.secret }),
  });
  const text = await answer.text();
  const ms = performance.now() - started;
  if (answer.status !== 200) throw new Error(`${route.path} answered ${answer.status}: ${text}`);
  return ms;
}

/** The durations of the logins `loginLoops` loops make one after another until `durationMs` has passed. */
async function timeLogins(url: string, route: LoginRoute, durationMs: number): Promise<number[]> {
  const until = performance.now() + durationMs;
  const samples: number[] = [];
  await Promise.all(
    Array.from({ length: loginLoops }, async (_, loop) => {
      while (performance.now() < until) samples.push(await timedLogin(url, route, loop));
    }),
  );
  return samples.sort((a, b) => a - b);
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;
}

function summary(sorted: readonly number[]): string {
  const ms = (value: number) => `${Math.round(value)} ms`;
  return `${sorted.length} logins, p50 ${ms(percentile(sorted, 0.5))}, p99 ${ms(percentile(sorted, 0.99))}, max ${ms(sorted.at(-1) ?? Number.NaN)}`;
}

interface FloodReport {
  /** performance.now() of this process when the line was read. */
  readonly at: number;
  /** The flood's requests in flight when the line was written. */
  readonly inFlight: number;
  /** Its answers since the line before, by status. */
  readonly answers: Readonly<Record<string, number>>;
}

/** Starts the flooder against `route`; its reports (every 250 ms) collect in `reports`. */
function startFlood(url: string, route: LoginRoute) {
  const child = Bun.spawn(
    [
      join(root, "node_modules", ".bin", "bun"),
      join(import.meta.dir, "login-flooder.ts"),
      url,
      route.path,
      route.field,
      String(floodConnections),
      floodAddress,
    ],
    { cwd: root, stdin: "pipe", stdout: "pipe", stderr: "inherit" },
  );
  const reports: FloodReport[] = [];
  const reading = (async () => {
    let pending = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines)
        if (line) reports.push({ at: performance.now(), ...(JSON.parse(line) as Omit<FloodReport, "at">) });
    }
  })();
  const stop = async () => {
    child.stdin.end();
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await child.exited;
    clearTimeout(killer);
    await reading;
  };
  cleanups.push(stop);
  return { reports, stop };
}

function answered(reports: readonly FloodReport[], status?: string): number {
  let total = 0;
  for (const { answers } of reports)
    for (const [code, count] of Object.entries(answers)) if (status === undefined || code === status) total += count;
  return total;
}

/** Resolves once `ready` holds of the reports so far (polled as they arrive), or fails after `timeoutMs`. */
async function waitForFlood(reports: readonly FloodReport[], ready: () => boolean, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!ready()) {
    if (performance.now() > until)
      throw new Error(`the flood did not get going within ${timeoutMs} ms: ${JSON.stringify(reports)}`);
    await Bun.sleep(50);
  }
}

describe("second probe, finding 2: a login flood from one address does not slow another address's login", () => {
  for (const store of ["libSQL", "PostgreSQL"] as const) {
    for (const route of routes) {
      it(`${store}: with ${floodConnections} wrong ${route.field}s in flight from one address, ${route.path} from another keeps p99 ≤ ${maxP99Ms} ms`, async () => {
        const server = await start(store);
        // The first login checks the hash; the later ones are remembered (adapters/runtime/crypto.ts), so the
        // logins timed here need no hash check: what they wait for is the rest of the service.
        await timedLogin(server.url, route, 0);
        const unflooded = await timeLogins(server.url, route, unfloodedMs);

        const flood = startFlood(server.url, route);
        // Going: all its requests in flight, and its wrong secrets being checked (401).
        await waitForFlood(
          flood.reports,
          () => flood.reports.at(-1)?.inFlight === floodConnections && answered(flood.reports, "401") > 0,
          30_000,
        );
        const windowStart = performance.now();
        const flooded = await timeLogins(server.url, route, floodedMs);
        const windowEnd = performance.now();
        // The flood's reports written during the window (each is read at most a few ms after it is written).
        const inWindow = flood.reports.filter(({ at }) => at > windowStart && at <= windowEnd);
        await flood.stop();

        console.log(
          `${store} ${route.path}: unflooded ${summary(unflooded)}; flooded ${summary(flooded)}; the flood's ` +
            `answers in the ${Math.round(windowEnd - windowStart)} ms: ` +
            JSON.stringify({ 401: answered(inWindow, "401"), 503: answered(inWindow, "503"), all: answered(inWindow) }),
        );
        // The flood was kept up the whole time: a report at least every 2 s, all its requests in flight at
        // each, and its wrong secrets still checked.
        const reportTimes = [windowStart, ...inWindow.map(({ at }) => at), windowEnd];
        const longestGap = Math.max(...reportTimes.slice(1).map((at, index) => at - (reportTimes[index] as number)));
        expect(longestGap).toBeLessThanOrEqual(2_000);
        expect(inWindow.filter(({ inFlight }) => inFlight !== floodConnections)).toEqual([]);
        expect(answered(inWindow, "401")).toBeGreaterThan(0);
        expect(percentile(flooded, 0.99)).toBeLessThanOrEqual(maxP99Ms);
      }, 120_000);
    }
  }
});
