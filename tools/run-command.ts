/** A command run to its end, for the tests that drive a program as its users do (a CLI, a packed install). */

export interface CommandRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunCommandOptions {
  /** The working directory (default: this process's). */
  readonly cwd?: string;
  /** The whole environment (default: this process's). */
  readonly env?: Record<string, string | undefined>;
  /** What the command reads on standard input; without it, none. */
  readonly stdin?: string;
  /** Killed (SIGKILL) if still running after this long; without it, waited for as long as it runs. */
  readonly killAfterMs?: number;
}

/** Runs `command` until it exits: its exit code, and all it wrote on standard output and standard error. */
export async function runCommand(command: readonly string[], options: RunCommandOptions = {}): Promise<CommandRun> {
  const child = Bun.spawn([...command], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer =
    options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), options.killAfterMs);
  try {
    const [code, stdout, stderr] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}
