/**
 * A CPU hog for `npm run test:busy`: Debian's stress-ng (installed first when missing, as Chromium is) with one
 * worker per core, so that every core is held busy while the suites run. It is stopped for sure: `stop()`
 * ends its whole process group; a watchdog shell beside it ends it once this process is gone, however it went
 * (an exception, Ctrl-C, SIGKILL); and stress-ng's own `--timeout` ends it after a few hours whatever happens.
 *
 *   bun tools/cpu-hog.ts     # installs stress-ng when missing; exit 0, or 3 when it cannot be had here
 */
import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { ensureDebianPackage, PackageUnavailableError, packageUnavailableExitCode } from "./debian-package.ts";

export const stressNgPath = "/usr/bin/stress-ng";

/** Installs Debian's stress-ng when it is missing; rejects with what to do when this machine cannot. */
export function ensureStressNg(log?: (line: string) => void): Promise<string> {
  return ensureDebianPackage(
    {
      name: "stress-ng",
      path: stressNgPath,
      manualSteps:
        "install it as root: `apt-get update && apt-get install -y stress-ng` (or `sudo apt-get ...`), then run npm run test:busy again",
    },
    log,
  );
}

export interface CpuHogOptions {
  /** How many cores to hold busy (default: all of them). */
  readonly workers?: number;
  /** stress-ng's own limit: it stops by itself after this long, whatever becomes of this process (default 3 h). */
  readonly timeoutSeconds?: number;
  /** The hog's command (default: stress-ng with `workers` and `timeoutSeconds`); tests give a harmless one. */
  readonly command?: readonly string[];
  /** The process whose end ends the hog (default: this one). */
  readonly ownerPid?: number;
}

export interface CpuHog {
  /** The watchdog shell's pid, which leads the hog's process group. */
  readonly pid: number;
  readonly workers: number;
  /** Whether the hog's process group is still there. */
  running(): boolean;
  /** Ends the hog's process group (SIGTERM, then SIGKILL after 5 s); resolves once it is gone. */
  stop(): Promise<void>;
}

/**
 * The watchdog: starts the hog ("$@") in the background, and ends it as soon as the owner ($1) is gone, when
 * it is itself told to stop, or when it exits in any other way.
 */
const watchdog = [
  'owner=$1; shift; "$@" & hog=$!',
  'trap \'kill -TERM "$hog" 2>/dev/null; wait "$hog" 2>/dev/null\' EXIT',
  "trap 'exit 143' TERM INT HUP",
  'while kill -0 "$owner" 2>/dev/null && kill -0 "$hog" 2>/dev/null; do sleep 1; done',
].join("\n");

/** Whether a process group still has a member. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts the hog in a process group of its own (Ctrl-C at the terminal does not reach it: stop() does). */
export function startCpuHog(options: CpuHogOptions = {}): CpuHog {
  const workers = options.workers ?? availableParallelism();
  const command = options.command ?? [
    stressNgPath,
    "--cpu",
    String(workers),
    "--timeout",
    `${options.timeoutSeconds ?? 3 * 3600}s`,
    "--quiet",
  ];
  const child: ChildProcess = spawn(
    "/bin/sh",
    ["-c", watchdog, "cpu-hog", String(options.ownerPid ?? process.pid), ...command],
    {
      detached: true,
      stdio: "ignore",
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error(`the CPU hog did not start: ${command.join(" ")}`);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // As a last resort, when this process ends without stop() (an uncaught error): the group is told to stop.
  const onExit = () => {
    if (groupAlive(pid)) process.kill(-pid, "SIGTERM");
  };
  process.once("exit", onExit);
  return {
    pid,
    workers,
    running: () => groupAlive(pid),
    async stop() {
      process.off("exit", onExit);
      if (!groupAlive(pid)) return;
      process.kill(-pid, "SIGTERM");
      await exited;
      for (let waited = 0; groupAlive(pid) && waited < 5_000; waited += 100) await Bun.sleep(100);
      if (groupAlive(pid)) process.kill(-pid, "SIGKILL");
      for (let waited = 0; groupAlive(pid) && waited < 5_000; waited += 100) await Bun.sleep(100);
      if (groupAlive(pid)) throw new Error(`the CPU hog's process group ${pid} is still there after SIGKILL`);
    },
  };
}

if (import.meta.main) {
  try {
    process.stdout.write(`stress-ng: ${await ensureStressNg()}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof PackageUnavailableError ? packageUnavailableExitCode : 1);
  }
}
