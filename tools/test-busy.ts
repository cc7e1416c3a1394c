/**
 * `npm run test:busy`: the suites that wait for background work, run while every core is held busy by a CPU hog
 * (Debian's stress-ng, one worker per core, installed first when missing; tools/cpu-hog.ts), three rounds in a
 * row and no retries. A test that passes only on a quiet machine fails here. Each round runs:
 *
 *   1. the conformance suite in-process (as `npm test` runs it);
 *   2. the conformance suite against a real server, with svc-hub's target file and the admin token (as `npm test`
 *      runs it: the virtual clock and the wait at hand);
 *   3. the conformance suite against a real server with neither, as others run it
 *      (`npm run conformance -- --target URL`: no virtual clock, no wait, only what the interface offers);
 *   4. both browser suites (e2e/browser.e2e.ts, e2e/console.e2e.ts) in Debian's Chromium.
 *
 *   npm run test:busy                      # three rounds
 *   bun tools/test-busy.ts --rounds 1      # one round, to try a change
 *
 * Prints each run's counts and time, the load average, and closes with one line `N passed, N failed`
 * (`, N skipped`). The hog is stopped at the end, also on a failure or Ctrl-C. Outputs and reports go to
 * test-output/busy/round-<n>/. Exit 0 when nothing failed, 1 otherwise, 3 when stress-ng or Chromium cannot be
 * had on this machine (not Debian-like, or not root; `npm test` then skips this suite unless CI or
 * SVC_REQUIRE_BROWSER is set).
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { runSuiteAgainstServer } from "./conformance-server.ts";
import { type CpuHog, ensureStressNg, startCpuHog } from "./cpu-hog.ts";
import { PackageUnavailableError, packageUnavailableExitCode } from "./debian-package.ts";
import { ensureChromium } from "./ensure-chromium.ts";
import { bunCounts, type Counts, countsLine, harnessCounts, runLogged, withExitCode } from "./suite-run.ts";

const root = resolve(import.meta.dir, "..");
const outputDir = join(root, "test-output", "busy");
const bun = join(root, "node_modules", ".bin", "bun");

function roundsWanted(args: readonly string[]): number {
  const at = args.indexOf("--rounds");
  if (at === -1) return 3;
  const value = Number(args[at + 1]);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`test-busy: --rounds takes a whole number of at least 1, not ${args[at + 1]}\n`);
    process.exit(2);
  }
  return value;
}

const rounds = roundsWanted(process.argv.slice(2));
// The run as others make it must not find an admin token in the environment (neither the server nor the suite).
delete process.env.SVC_ADMIN_TOKEN;

function load(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(", ");
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(0)} s`;
}

let hog: CpuHog | null = null;

async function stopHog(): Promise<void> {
  const running = hog;
  hog = null;
  if (!running) return;
  await running.stop();
  process.stdout.write(`test-busy: the CPU hog is stopped (load average ${load()})\n`);
}

// Ctrl-C, or CI cancelling the job: the hog goes first (its watchdog would end it within a second anyway).
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    process.stderr.write(`test-busy: ${signal}, stopping the CPU hog\n`);
    void stopHog().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  });
}

try {
  await ensureStressNg((line) => process.stdout.write(`${line}\n`));
  await ensureChromium((line) => process.stdout.write(`${line}\n`));
} catch (error) {
  process.stderr.write(`test-busy: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof PackageUnavailableError ? packageUnavailableExitCode : 1);
}

interface RunLine {
  readonly round: number;
  readonly name: string;
  readonly counts: Counts;
  readonly ms: number;
}

const lines: RunLine[] = [];
const totals: Counts = { passed: 0, failed: 0, skipped: 0 };

async function timed(
  round: number,
  name: string,
  run: (logFile: string, reportDir: string) => Promise<Counts>,
): Promise<void> {
  const started = performance.now();
  const dir = join(outputDir, `round-${round}`);
  let counts: Counts;
  try {
    counts = await run(join(dir, `${name}.log`), join(dir, name));
  } catch (error) {
    // A server that did not start, say: a failure of this run, and the rounds go on.
    process.stderr.write(
      `test-busy: round ${round}, ${name}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    counts = { passed: 0, failed: 1, skipped: 0 };
  }
  const line = { round, name, counts, ms: performance.now() - started };
  lines.push(line);
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  process.stdout.write(
    `test-busy: round ${round}, ${name}: ${countsLine(counts)} in ${seconds(line.ms)} (load average ${load()})\n`,
  );
}

function run(label: string, logFile: string, command: string[]): Promise<{ code: number; output: string }> {
  return runLogged(command, { label, cwd: root, logFile, env: process.env });
}

const started = performance.now();
rmSync(outputDir, { recursive: true, force: true });
try {
  hog = startCpuHog();
  process.stdout.write(
    `test-busy: ${rounds} round(s) while stress-ng holds ${hog.workers} core(s) busy (load average ${load()})\n`,
  );
  for (let round = 1; round <= rounds; round += 1) {
    await timed(round, "conformance-in-process", async (logFile, reportDir) => {
      const { code, output } = await run(`round ${round}, conformance in-process`, logFile, [
        bun,
        "harness/cli.ts",
        "--in-process",
        join(root, "conformance", "implementations", "svc-hub", "in-process.ts"),
        "--impl",
        "svc-hub",
        "--report-dir",
        reportDir,
      ]);
      return withExitCode(harnessCounts(output), code);
    });
    await timed(round, "conformance-server", async (logFile, reportDir) => {
      const served = await runSuiteAgainstServer(
        root,
        ["--report-dir", reportDir],
        (command) => run(`round ${round}, conformance against a server, with the admin token`, logFile, command),
        logFile.replace(/\.log$/, ".server.log"),
      );
      return withExitCode(harnessCounts(served.output), served.code || served.serverExitCode);
    });
    await timed(round, "conformance-target-only", async (logFile, reportDir) => {
      const served = await runSuiteAgainstServer(
        root,
        ["--report-dir", reportDir],
        (command) => run(`round ${round}, conformance against a server, --target alone`, logFile, command),
        logFile.replace(/\.log$/, ".server.log"),
        { adminToken: false },
      );
      // Without the admin token the harness skips the scenarios that need it (the clock, wait, the admin API);
      // the run before this one ran them, so they are not counted again as skipped. Its own line shows them.
      const counts = harnessCounts(served.output);
      process.stdout.write(
        `test-busy: round ${round}, --target alone: ${counts.skipped} scenario(s) need the admin token, run with it above\n`,
      );
      return withExitCode({ ...counts, skipped: 0 }, served.code || served.serverExitCode);
    });
    await timed(round, "browser-e2e", async (logFile) => {
      const { code, output } = await run(`round ${round}, browser suites`, logFile, [
        bun,
        "test",
        "./e2e/browser.e2e.ts",
        "./e2e/console.e2e.ts",
      ]);
      return withExitCode(bunCounts(output), code);
    });
  }
} finally {
  await stopHog();
}

process.stdout.write("\n=== test-busy summary\n");
for (const line of lines)
  process.stdout.write(
    `round ${line.round} ${line.name.padEnd(24)} ${countsLine(line.counts).padEnd(36)} ${seconds(line.ms)}\n`,
  );
process.stdout.write(`${rounds} round(s) in ${seconds(performance.now() - started)}\n`);
process.stdout.write(`${countsLine(totals)}\n`);
process.exit(totals.failed > 0 ? 1 : 0);
