import { createWriteStream } from "node:fs";
import { join } from "node:path";

export interface SpawnedServer {
  readonly url: string;
  readonly pid: number;
  /** Output so far (stdout and stderr). */
  output(): string;
  /** What the server wrote on stdout alone so far (its log). */
  stdout(): string;
  /** SIGTERM, then the exit code (SIGKILL after the grace period). */
  stop(graceMs?: number): Promise<number>;
  /** SIGKILL at once (crash tests). */
  kill(): Promise<number>;
}

export interface SpawnOptions {
  readonly root: string;
  /** SVC_DATA_DIR; left unset without it, so the server keeps ./.svc-data of its working directory. */
  readonly dataDir?: string;
  /** What runs the server (default: this checkout's Bun on adapters/server/main.ts), and where (default `root`). */
  readonly command?: readonly string[];
  readonly cwd?: string;
  readonly adminToken?: string;
  /** The environment the settings below are added to (default: this process's). */
  readonly baseEnv?: Record<string, string | undefined>;
  readonly env?: Record<string, string>;
  readonly logFile?: string;
  readonly startTimeoutMs?: number;
  /**
   * Whether `output()` keeps what the server prints after its start (default true). A load test turns it off:
   * the request log of a loaded server is megabytes a second, and decoding and keeping it takes CPU from the
   * machine being measured.
   */
  readonly keepOutput?: boolean;
}

/**
 * Starts `adapters/server/main.ts` (or `options.command`, such as the single executable) as its own process on a
 * free port (PORT=0) and resolves once it has said where it listens. Rejects, with what the process printed, if it
 * exits or stays silent too long.
 */
export async function spawnServer(options: SpawnOptions): Promise<SpawnedServer> {
  const child = Bun.spawn(
    [
      ...(options.command ?? [
        join(options.root, "node_modules", ".bin", "bun"),
        join(options.root, "adapters", "server", "main.ts"),
      ]),
    ],
    {
      cwd: options.cwd ?? options.root,
      env: {
        ...(options.baseEnv ?? process.env),
        PORT: "0",
        SVC_HOST: "127.0.0.1",
        ...(options.dataDir === undefined ? {} : { SVC_DATA_DIR: options.dataDir }),
        ...(options.adminToken ? { SVC_ADMIN_TOKEN: options.adminToken } : {}),
        ...options.env,
      },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const log = options.logFile ? createWriteStream(options.logFile) : null;
  let output = "";
  let stdout = "";
  let resolveUrl: (url: string) => void = () => undefined;
  let listening = false;
  const urlSeen = new Promise<string>((resolve) => (resolveUrl = resolve));
  // The start ends with the banner on stderr and then the log's "listening" line on stdout (unless the log leaves
  // info lines out). Two pipes keep no order between them, so the start is seen once both have come: a caller
  // then finds the whole banner and the line in the output, whichever pipe was read first.
  const settings = { ...(options.baseEnv ?? process.env), ...options.env };
  const logsInfo = !["warn", "error"].includes((settings.SVC_LOG_LEVEL ?? "info").toLowerCase());
  let startErr = "";
  let bannerUrl: string | null = null;
  let logLineSeen = !logsInfo;
  const pump = async (stream: ReadableStream<Uint8Array>, isStdout: boolean) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      if (listening && options.keepOutput === false && !log) continue;
      const text = decoder.decode(chunk, { stream: true });
      if (!listening || options.keepOutput !== false) {
        output += text;
        if (isStdout) stdout += text;
      }
      log?.write(text);
      // Only until the start is seen: a server under load logs megabytes, and scanning all of it per chunk is
      // quadratic.
      if (listening) continue;
      // The line in JSON, or in the pretty format (SVC_LOG_FORMAT=pretty).
      if (isStdout) logLineSeen ||= /"msg":"listening"|\bINFO +listening\b/.test(stdout);
      else {
        startErr += text;
        // The banner's last line names the health check.
        bannerUrl ??= /is listening on (\S+)[\s\S]*\n {2}try: {9}curl \S+\n/.exec(startErr)?.[1] ?? null;
      }
      if (bannerUrl !== null && logLineSeen) {
        listening = true;
        resolveUrl(bannerUrl);
      }
    }
  };
  const pumping = Promise.all([pump(child.stdout, true), pump(child.stderr, false)]);
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  let startTimer: ReturnType<typeof setTimeout> | undefined;
  const url = await Promise.race([
    urlSeen,
    child.exited.then(async (code) => {
      await pumping;
      throw new Error(`the server exited with code ${code} before listening:\n${output}`);
    }),
    new Promise<never>((_, reject) => {
      startTimer = setTimeout(
        () => reject(new Error(`the server did not listen within ${timeoutMs} ms:\n${output}`)),
        timeoutMs,
      );
    }),
  ]).finally(() => clearTimeout(startTimer));

  let exitCode: number | null = null;
  const finish = async () => {
    exitCode = await child.exited;
    await pumping;
    log?.end();
    return exitCode;
  };
  return {
    url,
    pid: child.pid,
    output: () => output,
    stdout: () => stdout,
    async stop(graceMs = 10_000) {
      if (exitCode !== null) return exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      try {
        return await finish();
      } finally {
        clearTimeout(timer);
      }
    },
    async kill() {
      if (exitCode !== null) return exitCode;
      child.kill("SIGKILL");
      return finish();
    },
  };
}
