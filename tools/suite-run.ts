/**
 * What `npm test` (test-all.ts) and `npm run test:busy` (test-busy.ts) share: running one suite's command with its
 * output shown as it comes and kept in a log, and reading the counts its output closes with.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes start with the ESC character
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

/**
 * Runs `command` in `cwd`, its output shown as it comes after a `=== <label>: <command>` line and written (without
 * colours) to `logFile`; answers its exit code and output. `env` is the whole environment of the command.
 */
export async function runLogged(
  command: readonly string[],
  options: {
    readonly label: string;
    readonly cwd: string;
    readonly logFile: string;
    readonly env: Readonly<Record<string, string | undefined>>;
  },
): Promise<{ code: number; output: string }> {
  const shown = command.map((part) => part.replace(`${options.cwd}/`, "")).join(" ");
  process.stdout.write(`\n=== ${options.label}: ${shown}\n`);
  const child = Bun.spawn([...command], {
    cwd: options.cwd,
    env: { ...options.env, FORCE_COLOR: "0", NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const pump = async (stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      output += text;
      sink.write(text);
    }
  };
  await Promise.all([pump(child.stdout, process.stdout), pump(child.stderr, process.stderr)]);
  const code = await child.exited;
  mkdirSync(dirname(options.logFile), { recursive: true });
  writeFileSync(options.logFile, stripAnsi(output));
  return { code, output: stripAnsi(output) };
}

/** A suite that exits non-zero without counting a failure (a crash, a compile error) counts as one failure. */
export function withExitCode(counts: Counts, code: number): Counts {
  return code !== 0 && counts.failed === 0 ? { ...counts, failed: 1 } : counts;
}

function lastNumber(output: string, pattern: RegExp): number {
  const matches = [...output.matchAll(pattern)];
  const last = matches.at(-1);
  return last ? Number(last[1]) : 0;
}

/** bun test closes with lines such as ` 81 pass`, ` 0 fail`, ` 2 skip`. */
export function bunCounts(output: string): Counts {
  return {
    passed: lastNumber(output, /^\s*(\d+) pass$/gm),
    failed: lastNumber(output, /^\s*(\d+) fail$/gm),
    skipped: lastNumber(output, /^\s*(\d+) (?:skip|todo)$/gm),
  };
}

/** deno test closes with `ok | 7 passed (81 steps) | 0 failed`; steps are the individual tests. */
export function denoCounts(output: string): Counts {
  const line =
    output
      .split("\n")
      .reverse()
      .find((entry) => /\d+ passed.*\d+ failed/.test(entry)) ?? "";
  const passed = /(\d+) passed(?: \((\d+) steps?\))?/.exec(line);
  const failed = /(\d+) failed(?: \((\d+) steps?\))?/.exec(line);
  const ignored = /(\d+) ignored/.exec(line);
  return {
    passed: Number(passed?.[2] ?? passed?.[1] ?? 0),
    failed: Number(failed?.[2] ?? failed?.[1] ?? 0),
    skipped: Number(ignored?.[1] ?? 0),
  };
}

/** The harness (and test-busy.ts) close with `N passed, N failed` (`, N skipped`). */
export function harnessCounts(output: string): Counts {
  const line =
    output
      .split("\n")
      .reverse()
      .find((entry) => /^\d+ passed, \d+ failed/.test(entry.trim())) ?? "";
  const match = /(\d+) passed, (\d+) failed(?:, (\d+) skipped)?/.exec(line);
  return { passed: Number(match?.[1] ?? 0), failed: Number(match?.[2] ?? 0), skipped: Number(match?.[3] ?? 0) };
}

/** `N passed, N failed` with `, N skipped` when any. */
export function countsLine(counts: Counts): string {
  return `${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ""}`;
}
