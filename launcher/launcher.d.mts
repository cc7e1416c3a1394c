/**
 * svc-hub as a child process of a test setup: `import { startSvcHub } from "svc-hub/launcher"`.
 * Runs under Node 20 and later and under Bun; the server itself runs on the Bun of svc-hub's `bun` dependency.
 */

export interface SvcHubOptions {
  /**
   * The configuration file (JSON or YAML), relative to the working directory. Default: as `npx svc-hub` in the
   * working directory, `./svc.config.json`, `.yaml` or `.yml` when there is one, else the demo tenants.
   */
  config?: string;
  /**
   * The data directory, relative to the working directory; kept after `stop()`. Default: a new folder under
   * the system's temporary directory, which `stop()` removes.
   */
  dataDir?: string;
  /** SVC_STORE: `libsql` (the server's default) or `memory`. */
  store?: "libsql" | "memory";
  /** SVC_TIMING: how long background work waits. Default: the configuration's `timing` (else `fast`). */
  timing?: "instant" | "fast" | "realistic";
  /** SVC_ADMIN_TOKEN: at least 16 visible ASCII characters. Default: a random one, returned as `adminToken`. */
  adminToken?: string;
  /** SVC_LOG_LEVEL: `warn` leaves out the line per request. Default `info`. */
  logLevel?: "info" | "warn" | "error";
  /**
   * More environment for the server (`SVC_BACKGROUND`, a configuration's `{ env: NAME }` secrets, ...). The
   * caller's own `PORT`, `SVC_*` and `INIT_CWD` are not passed on: only these and the options above are. The
   * options win over the same variables here. The server listens on a free port of 127.0.0.1 unless `PORT` or
   * `SVC_HOST` say otherwise.
   */
  env?: Record<string, string | undefined>;
  /** How long the start may take before the server is killed and the start rejected. Default 30000. */
  startTimeoutMs?: number;
}

/** The answer of `POST /admin/wait` (docs/testing-with-svc-hub.md, "Waiting for background work"). */
export interface SvcHubWaitResult {
  complete: boolean;
  /** Per worker, the items finished while the wait ran. */
  processed: Record<string, number>;
  /** With `complete: false`, when the work left falls due (ISO 8601). */
  nextDueAt: string | null;
}

export interface SvcHubWaitOptions {
  /** How long the wait may take (default 30000, at most 600000); past it the call rejects (504). */
  timeoutMs?: number;
  /** `false` runs only what is due now, not the work scheduled later on the virtual clock. */
  scheduled?: boolean;
}

/** The answer of `POST /admin/reset`: what it erased and what the configuration put back, counted. */
export interface SvcHubResetResult {
  erased: Record<string, number>;
  configuration: Record<string, number>;
}

export interface SvcHub {
  /** Where it listens, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  readonly url: string;
  /** The admin API's bearer token. */
  readonly adminToken: string;
  /** The data directory (absolute): the drop folders are `inbox/<account>/<profile>/` under it. */
  readonly dataDir: string;
  /** The server process. */
  readonly pid: number;
  /** What the server printed (the log on stdout, the banner on stderr): all of its start, then at least its last 256 K characters. */
  output(): string;
  /** `POST /admin/reset`: back to a fresh start with the same configuration, without a restart. Rejects unless 200. */
  reset(): Promise<SvcHubResetResult>;
  /** `POST /admin/wait`: resolves once the background work accepted so far is done. Rejects unless 200. */
  wait(options?: SvcHubWaitOptions): Promise<SvcHubWaitResult>;
  /**
   * SIGTERM (SIGKILL 10 s later if it has not stopped), then the exit code: 0 for a clean stop. Removes the
   * data directory the launcher made. Calling it again returns the same promise. A process that ends without
   * calling it sends the server SIGTERM as it exits.
   */
  stop(): Promise<number>;
  /** `await using hub = await startSvcHub()`: calls `stop()` when the block ends. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Rejected by `startSvcHub` when the server exits before it listens, cannot be run, or does not listen in time. */
export declare class SvcHubStartError extends Error {
  /** What the server printed, e.g. why its configuration is not valid. Also at the end of `message`. */
  readonly output: string;
  /** The server's exit code (2 for a setting or configuration it refused), or null when it never ran or was killed for the timeout. */
  readonly exitCode: number | null;
}

/** Starts svc-hub and resolves once it listens. */
export declare function startSvcHub(options?: SvcHubOptions): Promise<SvcHub>;
