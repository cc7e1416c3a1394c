/**
 * `import { startSvcHub } from "svc-hub/launcher"`: svc-hub as a child process of a test setup (vitest or jest
 * globalSetup, bun test beforeAll), on a free port, with a data directory and an admin token of its own.
 *
 * Plain JavaScript so that Node 20 runs it as it is; its types are launcher.d.mts.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { constants, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describeSpawnFailure, serverCommand } from "./server-command.mjs";

/** What `output()` keeps of a server that has started: at least the last this many characters (a request log grows without end). */
const keptOutputChars = 256 * 1024;
/** How long `stop()` lets the server finish (it gives requests in flight 5 s) before SIGKILL. */
const stopGraceMs = 10_000;

/** Node 20 and Bun name it; the registered symbol is what a runtime without it would use (TypeScript's helpers do). */
const asyncDispose = Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose");

/** The start failed: the server exited, could not be run, or did not listen in time. `output` is what it printed. */
export class SvcHubStartError extends Error {
  constructor(message, output, exitCode) {
    super(output ? `${message}:\n${output.trimEnd()}` : message);
    this.name = "SvcHubStartError";
    this.output = output;
    this.exitCode = exitCode;
  }
}

/**
 * The server's environment. The caller's own PORT, SVC_* and INIT_CWD are left out: a test setup must not
 * pick up the variables a developer exported for the server they run by hand (another port, another
 * configuration, their data directory); `options.env` sets any of them on purpose. Without INIT_CWD, a relative
 * path in `options.env` is read from the working directory, as the options' paths are.
 */
function serverEnvironment(options, dataDir, adminToken) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== "PORT" && name !== "INIT_CWD" && !name.startsWith("SVC_")),
  );
  const named = {
    SVC_CONFIG: options.config === undefined ? undefined : resolve(options.config),
    SVC_STORE: options.store,
    SVC_TIMING: options.timing,
    SVC_LOG_LEVEL: options.logLevel,
  };
  const env = {
    ...inherited,
    PORT: "0",
    SVC_HOST: "127.0.0.1",
    ...options.env,
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: adminToken,
    // A test runner killed outright (SIGKILL, a crash) cannot send SIGTERM: the server stops once it is gone.
    SVC_STOP_WITH_PARENT: "true",
  };
  for (const [name, value] of Object.entries(named)) if (value !== undefined) env[name] = value;
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
}

/** The URL of the log's listening line, or of the banner's when the log level leaves that line out. */
function listeningUrlIn(stdout, stderr) {
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.msg === "listening" && typeof entry.url === "string") return entry.url;
    } catch {
      // A line still being written: read again with the next chunk.
    }
  }
  return /is listening on (\S+)/.exec(stderr)?.[1] ?? null;
}

export async function startSvcHub(options = {}) {
  let command;
  try {
    command = serverCommand();
  } catch (error) {
    throw new SvcHubStartError(error instanceof Error ? error.message : String(error), "", null);
  }
  const namedDataDir = options.dataDir ?? options.env?.SVC_DATA_DIR;
  // A fresh folder per start, removed by stop(): a suite never sees what another run left.
  const ownsDataDir = !namedDataDir;
  const dataDir = ownsDataDir ? await mkdtemp(join(tmpdir(), "svc-hub-")) : resolve(namedDataDir);
  const adminToken = options.adminToken ?? (options.env?.SVC_ADMIN_TOKEN || randomBytes(24).toString("base64url"));
  const child = spawn(command.command, command.args, {
    env: serverEnvironment(options, dataDir, adminToken),
    stdio: ["ignore", "pipe", "pipe"],
  });

  let output = "";
  let stdout = "";
  let stderr = "";
  let started = false;
  let onChange = () => undefined;
  const read = (isStdout) => (text) => {
    output += text;
    if (started) {
      // The pipes are read all the time, else the server would block once they are full.
      if (output.length > 2 * keptOutputChars) output = output.slice(-keptOutputChars);
      return;
    }
    if (isStdout) stdout += text;
    else stderr += text;
    onChange();
  };
  // Decoded by the streams, so that a character split across two chunks comes out whole.
  child.stdout.setEncoding("utf8").on("data", read(true));
  child.stderr.setEncoding("utf8").on("data", read(false));
  const exited = new Promise((resolveExit) => {
    child.on("error", (error) => {
      output += `${describeSpawnFailure(command.command, error)}\n`;
      resolveExit(null);
    });
    // After exit and its output: `close` comes once the pipes are drained.
    child.on("close", (code, signal) => resolveExit(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : null)));
  });
  const removeDataDir = () => (ownsDataDir ? rm(dataDir, { recursive: true, force: true }) : Promise.resolve());

  const timeoutMs = options.startTimeoutMs ?? 30_000;
  let timer;
  const url = await new Promise((resolveUrl, reject) => {
    onChange = () => {
      const found = listeningUrlIn(stdout, stderr);
      if (found) resolveUrl(found);
    };
    let timedOut = false;
    exited.then((code) => {
      if (timedOut) reject(new SvcHubStartError(`svc-hub did not listen within ${timeoutMs} ms`, output, null));
      else
        reject(
          new SvcHubStartError(
            code === null ? "svc-hub could not be started" : `svc-hub exited with code ${code} before listening`,
            output,
            code,
          ),
        );
    });
    timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
  })
    .catch(async (error) => {
      await removeDataDir();
      throw error;
    })
    .finally(() => clearTimeout(timer));
  started = true;
  stdout = stderr = "";

  // A setup that never calls stop() must neither keep its process from ending (the child and its pipes are
  // not waited for) nor leave the server running after it: it is stopped when the process exits.
  const stopOnExit = () => child.kill("SIGTERM");
  process.on("exit", stopOnExit);
  const holdProcess = (hold) => {
    for (const handle of [child, child.stdout, child.stderr]) (hold ? handle.ref : handle.unref)?.call(handle);
  };
  holdProcess(false);

  async function admin(path, body) {
    const answer = await fetch(`${url}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await answer.text();
    if (answer.status !== 200) throw new Error(`svc-hub: POST ${path} answered ${answer.status}: ${text}`);
    return JSON.parse(text);
  }

  let stopped;
  const hub = {
    url,
    adminToken,
    dataDir,
    pid: child.pid,
    output: () => output,
    reset: () => admin("/admin/reset"),
    wait: (waitOptions) => admin("/admin/wait", waitOptions),
    stop() {
      stopped ??= (async () => {
        holdProcess(true);
        child.kill("SIGTERM");
        const killTimer = setTimeout(() => child.kill("SIGKILL"), stopGraceMs);
        const code = await exited;
        clearTimeout(killTimer);
        process.off("exit", stopOnExit);
        await removeDataDir();
        return code;
      })();
      return stopped;
    },
    // `await using hub = await startSvcHub()`: stopped when the block that holds it ends, however it ends.
    [asyncDispose]() {
      return hub.stop().then(() => undefined);
    },
  };
  return hub;
}
