/**
 * `npx svc-hub` in a project that installed svc-hub: the bin as npm links it (node_modules/.bin/svc-hub), run
 * by Node, in the project's folder.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { consumerProjectCleanedBy, environmentWithoutServerSettings } from "../tools/consumer-project.ts";
import { runCommand } from "../tools/run-command.ts";

const repository = resolve(import.meta.dir, "..");
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const consumerProject = () => consumerProjectCleanedBy(cleanups);

interface RunningBin {
  readonly child: Subprocess<"ignore", "pipe", "pipe">;
  /** The log's listening line. */
  readonly listening: { url: string; dataDir: string | null; store: string; config: string; timing: string };
  /** Everything printed once the process has exited. */
  readonly finished: Promise<{ code: number; stdout: string; stderr: string }>;
}

/** Starts `command` in `cwd` and resolves once its log says where it listens. */
async function startBin(command: string[], cwd: string, env: Record<string, string>): Promise<RunningBin> {
  const child = Bun.spawn(command, {
    cwd,
    env: { ...environmentWithoutServerSettings(), PORT: "0", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  cleanups.push(() => {
    clearTimeout(killer);
    if (child.exitCode !== null) return;
    // A test that failed before the bin stopped: the server too, which SIGKILL would not reach through the bin.
    const servers = Bun.spawnSync(["pgrep", "-P", String(child.pid)])
      .stdout.toString()
      .split("\n")
      .filter(Boolean);
    child.kill("SIGKILL");
    for (const pid of servers) process.kill(Number(pid), "SIGKILL");
  });
  let stdout = "";
  let seen: (line: RunningBin["listening"]) => void = () => undefined;
  const listening = new Promise<RunningBin["listening"]>((resolveLine) => (seen = resolveLine));
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) {
      stdout += decoder.decode(chunk, { stream: true });
      const line = stdout.split("\n").find((entry) => entry.includes('"msg":"listening"'));
      if (line) seen(JSON.parse(line) as RunningBin["listening"]);
    }
  })();
  const finished = Promise.all([child.exited, new Response(child.stderr).text(), reading]).then(([code, stderr]) => ({
    code,
    stdout,
    stderr,
  }));
  const line = await Promise.race([
    listening,
    finished.then(({ code, stderr }) =>
      Promise.reject(new Error(`exited with ${code} before listening:\n${stdout}${stderr}`)),
    ),
  ]);
  return { child, listening: line, finished };
}

/** Runs `node bin/svc-hub.mjs` with `args` to its end. */
async function runBin(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCommand(["node", join(repository, "bin", "svc-hub.mjs"), ...args], {
    cwd,
    env: { ...environmentWithoutServerSettings(), PORT: "0", ...env },
    killAfterMs: 20_000,
  });
}

const answers = (url: string) =>
  fetch(`${url}/healthz`).then(
    () => true,
    () => false,
  );
const token = "bin-test-admin-token-0123";

/** Whether the process `pid` has ended within `ms` (polled: it is not this test's child). */
async function stopsWithin(pid: number, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await Bun.sleep(100)) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
  }
  return false;
}

describe("the svc-hub bin", () => {
  it("in a project's folder, reads its svc.config.yaml, keeps its data in its ./.svc-data, and stops with exit code 0 on SIGTERM", async () => {
    const folder = consumerProject();
    writeFileSync(
      join(folder, "svc.config.yaml"),
      ["accounts:", "  - name: shop", "    profiles:", "      - name: web", ""].join("\n"),
    );
    // The project's .env is its app's: Bun must not read it into svc-hub (here it would choose the memory store).
    writeFileSync(join(folder, ".env"), "SVC_STORE=memory\nPORT=1\n");
    const bin = await startBin([join(folder, "node_modules", ".bin", "svc-hub")], folder, { SVC_ADMIN_TOKEN: token });
    expect(bin.listening).toMatchObject({
      config: join(folder, "svc.config.yaml"),
      dataDir: join(folder, ".svc-data"),
      store: "libsql",
    });
    expect(existsSync(join(folder, ".svc-data", "svc-hub.db"))).toBe(true);
    expect(existsSync(join(repository, "svc.config.yaml"))).toBe(false);
    const accounts = await fetch(`${bin.listening.url}/admin/accounts`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(JSON.stringify(await accounts.json())).toContain("shop");

    // The signal reaches the bin alone, as a supervisor sends it; the bin hands it to the server.
    bin.child.kill("SIGTERM");
    const { code, stdout } = await bin.finished;
    expect(code).toBe(0);
    expect(stdout).toContain('"msg":"stopping","signal":"SIGTERM"');
    expect(await answers(bin.listening.url)).toBe(false);
  }, 30_000);

  it("second probe, finding 7: in a project's folder, `svc-hub admin-token` prints the token the first start made and printed once", async () => {
    const folder = consumerProject();
    const first = await startBin([join(folder, "node_modules", ".bin", "svc-hub")], folder, {});
    first.child.kill("SIGTERM");
    const { code, stderr } = await first.finished;
    expect(code).toBe(0);
    const made = /admin token: (\S+) \(new, kept in the store/.exec(stderr)?.[1] ?? "";
    expect(made).toMatch(/^[\w-]{32}$/);
    expect(await runBin(["admin-token"], folder)).toEqual({ code: 0, stdout: `${made}\n`, stderr: "" });
  }, 30_000);

  it("run as `node bin/svc-hub.mjs` from an npm script: the defaults are the working directory's, a relative SVC_DATA_DIR is read from where the command was typed (INIT_CWD); SIGINT stops it with exit code 0", async () => {
    const folder = consumerProject();
    const typedIn = join(folder, "packages", "app");
    mkdirSync(typedIn, { recursive: true });
    const defaults = await startBin(["node", join(repository, "bin", "svc-hub.mjs")], folder, {
      INIT_CWD: typedIn,
      SVC_STORE: "memory",
    });
    // No svc.config.* in the working directory: the demo, with the drop folders under ./.svc-data there.
    expect(defaults.listening.config).toEndWith(join("adapters", "config", "demo.config.json"));
    expect(existsSync(join(folder, ".svc-data", "inbox"))).toBe(true);
    defaults.child.kill("SIGINT");
    expect((await defaults.finished).code).toBe(0);

    const named = await startBin(["node", join(repository, "bin", "svc-hub.mjs")], folder, {
      INIT_CWD: typedIn,
      SVC_DATA_DIR: "local-data",
    });
    expect(named.listening.dataDir).toBe(join(typedIn, "local-data"));
    named.child.kill("SIGINT");
    expect((await named.finished).code).toBe(0);
  }, 30_000);

  it("a configuration the server refuses: exit code 2 and the server's message on stderr", async () => {
    const folder = consumerProject();
    writeFileSync(
      join(folder, "svc.config.json"),
      JSON.stringify({
        accounts: [{ name: "shop", profiles: [{ name: "web" }] }],
        users: [{ email: "not-an-address", password: { env: "X" } }],
      }),
    );
    const { code, stderr } = await runBin([], folder);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `${join(folder, "svc.config.json")}: /users/0/email: must be an e-mail address (found "not-an-address")`,
    );
  }, 30_000);

  it("issue 33, one CLI: --help on each command prints its usage, --version the package's version; an unknown command or flag exits 2 with a one-line message and the usage, without starting a server", async () => {
    const folder = consumerProject();
    const help = await runBin(["--help"], folder);
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining("Usage: svc-hub [command]")]);
    expect(help.stdout).toContain("Exit codes: 0 done; 1 failed");
    for (const [command, usage] of [
      ["start", "Usage: svc-hub [start]"],
      ["events", "Usage: svc-hub events"],
      ["wait", "Usage: svc-hub wait"],
      ["reset", "Usage: svc-hub reset"],
      ["hash-secret", "svc-hub hash-secret [--key]"],
      ["publish", "usage: svc-hub publish"],
      ["admin-token", "usage: svc-hub admin-token"],
      ["conformance", "usage: svc-hub-conformance"],
    ] as const) {
      const answer = await runBin([command, "--help"], folder);
      expect([command, answer.code, answer.stdout]).toEqual([command, 0, expect.stringContaining(usage)]);
    }
    const version = await runBin(["--version"], folder);
    const manifest = JSON.parse(readFileSync(join(repository, "package.json"), "utf8")) as { version: string };
    expect([version.code, version.stdout]).toEqual([0, `${manifest.version}\n`]);

    const unknownCommand = await runBin(["serve"], folder);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toStartWith('svc-hub: unknown command "serve"\n\nUsage: svc-hub [command]');
    const unknownFlag = await runBin(["--prot", "9000"], folder);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toStartWith("svc-hub: Unknown option '--prot'");
    expect(unknownFlag.stderr).toContain("Usage: svc-hub [start]");
    const badNumber = await runBin(["events", "--interval-ms", "soon"], folder);
    expect([badNumber.code, badNumber.stderr]).toEqual([
      2,
      expect.stringContaining("--interval-ms takes a whole number"),
    ]);
    expect(existsSync(join(folder, ".svc-data"))).toBe(false);
  }, 60_000);

  it("issue 43, point 2: `svc-hub events --wait` prints the matching events once stored, exits 1 with a message at its timeout; --count counts", async () => {
    const folder = consumerProject();
    const bin = await startBin([join(folder, "node_modules", ".bin", "svc-hub"), "--store", "memory"], folder, {
      SVC_ADMIN_TOKEN: token,
    });
    const remote = { SVC_URL: bin.listening.url, SVC_ADMIN_TOKEN: token };
    const waiting = runBin(
      ["events", "--wait", "--event", "purchase", "--param", "sku=A1", "--min", "2", "--timeout-ms", "60000"],
      folder,
      remote,
    );
    for (const sku of ["A1", "B2", "A1"]) {
      const sent = await fetch(
        `${bin.listening.url}/event?svc_account=acme&svc_profile=main&svc_event=purchase&sku=${sku}&tapid=cli`,
      );
      expect(sent.status).toBe(200);
    }
    const waited = await waiting;
    expect(waited.code).toBe(0);
    const lines = waited.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { data: { sku: string } });
    expect(lines.map((line) => line.data.sku)).toEqual(["A1", "A1"]);

    const timedOut = await runBin(["events", "--wait", "--event", "refund", "--timeout-ms", "0"], folder, remote);
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toBe("svc-hub: timed out after 0 ms: 0 of the 1 matching events waited for are stored\n");

    const counted = await runBin(["events", "--count", "--event", "purchase", "--param", "sku=B2"], folder, remote);
    expect([counted.code, counted.stdout]).toEqual([0, '{"count":1}\n']);
    const badParam = await runBin(["events", "--wait", "--param", "sku"], folder, remote);
    expect([badParam.code, badParam.stderr]).toEqual([
      2,
      expect.stringContaining('--param takes name=value, not "sku"'),
    ]);
    bin.child.kill("SIGTERM");
    expect((await bin.finished).code).toBe(0);
  }, 60_000);

  it("issue 33, start's flags mirror the variables and win over them: --port, --data-dir (from where it was typed), --store, --config", async () => {
    const folder = consumerProject();
    writeFileSync(
      join(folder, "hub.yaml"),
      ["accounts:", "  - name: flagged", "    profiles:", "      - name: web", ""].join("\n"),
    );
    // Each of these variables would stop the start: the flags must win over them.
    const flagged = await startBin(
      [
        ...["node", join(repository, "bin", "svc-hub.mjs"), "--port", "0", "--data-dir", "flag-data"],
        ...["--store", "libsql", "--config", "hub.yaml"],
      ],
      folder,
      {
        PORT: "1",
        SVC_STORE: "bogus",
        SVC_DATA_DIR: "env-data",
        SVC_CONFIG: "/nonexistent.yaml",
        SVC_ADMIN_TOKEN: token,
      },
    );
    expect(flagged.listening).toMatchObject({
      dataDir: join(folder, "flag-data"),
      store: "libsql",
      config: join(folder, "hub.yaml"),
    });
    expect(existsSync(join(folder, "env-data"))).toBe(false);
    flagged.child.kill("SIGTERM");
    expect((await flagged.finished).code).toBe(0);
  }, 30_000);

  it("issue 33, signals reach the server whichever way it was started: a bin killed outright (SIGKILL) leaves no server behind", async () => {
    const folder = consumerProject();
    const bin = await startBin([join(folder, "node_modules", ".bin", "svc-hub"), "--store", "memory"], folder, {});
    const [server] = Bun.spawnSync(["pgrep", "-P", String(bin.child.pid)])
      .stdout.toString()
      .split("\n");
    expect(Number(server)).toBeGreaterThan(0);
    bin.child.kill("SIGKILL");
    await bin.finished;
    // SIGKILL cannot be passed on: the server notices its parent is gone and stops by itself.
    expect(await stopsWithin(Number(server), 5_000)).toBe(true);
    expect(await answers(bin.listening.url)).toBe(false);
  }, 30_000);

  it("issue 33, under npx (npm exec) and npm start: SIGTERM to npm stops the server cleanly, and npm killed outright leaves no server behind", async () => {
    const folder = consumerProject();
    const npx = await startBin(["npm", "exec", "--offline", "--", "svc-hub", "--store", "memory"], folder, {});
    npx.child.kill("SIGTERM");
    // npm itself ends as the signal's (143); the server it ran stopped cleanly, not left running.
    const { stdout } = await npx.finished;
    expect(stdout).toContain('"msg":"stopping","signal":"SIGTERM"');
    expect(stdout).toContain('"msg":"server stopped"');
    expect(await answers(npx.listening.url)).toBe(false);

    const dataDir = join(folder, "npm-start-data");
    const npmStart = await startBin(["npm", "start", "--silent"], repository, {
      SVC_DATA_DIR: dataDir,
      SVC_STORE: "memory",
    });
    const [server] = Bun.spawnSync(["pgrep", "-f", "-P", String(npmStart.child.pid), "adapters/server/main.ts"])
      .stdout.toString()
      .split("\n");
    npmStart.child.kill("SIGKILL");
    await npmStart.finished;
    expect(await stopsWithin(Number(server), 5_000)).toBe(true);
    expect(await answers(npmStart.listening.url)).toBe(false);
  }, 60_000);
});
