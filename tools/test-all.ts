/**
 * `npm test`: every suite, one after another, then one closing line `N passed, N failed` (`, N skipped`).
 *
 *   1. type-check (tsc, and tsc -p core: the core alone, with no runtime or DOM types) and the core under Deno
 *      (deno check, deno test): core/ is runtime-neutral;
 *   2. bun test: core, adapters, harness, tools, the launcher and bin (started under Node too), and the client;
 *   3. the conformance scenarios against the in-process app;
 *   4. the conformance scenarios against a real server started on a free port, and whether the committed
 *      COMPATIBILITY.md is what that run found (`npm run compatibility` writes it; npm test changes no tracked file);
 *   5. the single executable (`npm run build:exe`): built for linux-x64, linux-arm64 and darwin-arm64, the conformance
 *      scenarios against the linux-x64 one alone in an empty folder, then e2e/executable.e2e.ts (a clean stop
 *      on SIGTERM, also as PID 1, its data after a restart, its commands; the linux-arm64 one under qemu);
 *   6. the reliability and security suite (reliability/: fuzzing, tenancy, crashes, sessions, full disk, slow clients);
 *   7. the browser end-to-end suite in Debian's Chromium (installed first when missing; skipped, saying why,
 *      where it cannot be had, unless CI or SVC_REQUIRE_BROWSER is set);
 *   8. the image: svc-hub's OCI image built from the Dockerfile with Debian's podman (installed first when missing,
 *      with a base image made by debootstrap: tools/ensure-podman.ts), run with a volume, the whole conformance
 *      suite against it, a restart and a stop (e2e/image.e2e.ts); skipped like the browser suite where podman
 *      cannot be had;
 *   9. busy (`npm run test:busy`, tools/test-busy.ts): the conformance runs and the browser suites, three rounds
 *      while a CPU hog (Debian's stress-ng) holds every core busy; skipped like the browser suite where stress-ng
 *      or Chromium cannot be had.
 *
 * Each suite's output is shown as it runs and kept in test-output/<suite>.log.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { copyToEmptyFolder } from "./build-exe.ts";
import { runSuiteAgainstServer } from "./conformance-server.ts";
import { packageUnavailableExitCode, suiteWhenUnavailable } from "./debian-package.ts";
import { browserSuiteWhenUnavailable, chromiumUnavailableExitCode } from "./ensure-chromium.ts";
import { type PostgresServer, startPostgresServer } from "./postgres-server.ts";
import { bunCounts, type Counts, countsLine, denoCounts, harnessCounts, runLogged, withExitCode } from "./suite-run.ts";

const root = resolve(import.meta.dir, "..");
const outputDir = join(root, "test-output");
mkdirSync(outputDir, { recursive: true });
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const only = process.argv.slice(2);
/**
 * Bun's 5 s default per test is a guard against a hang, and a test that starts a server process or hashes with
 * argon2 can pass it on a busy machine for no fault of its own: the guard is a minute. A test that must be
 * quick says so by measuring, in reliability/ or bench/, never by this limit.
 */
const bunTestTimeout = ["--timeout", "60000"];

const totals: Counts = { passed: 0, failed: 0, skipped: 0 };
const suiteLines: string[] = [];

function runCommand(
  name: string,
  command: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  return runLogged(command, {
    label: name,
    cwd: root,
    logFile: join(outputDir, `${name}.log`),
    env: { ...process.env, ...env },
  });
}

function record(name: string, found: Counts, code: number): void {
  const counts = withExitCode(found, code);
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  suiteLines.push(`${name.padEnd(28)} ${countsLine(counts)}`);
}

const suites: Array<{ name: string; run: () => Promise<void> }> = [
  {
    name: "typecheck",
    async run() {
      const { code } = await runCommand("typecheck", [bin("tsc"), "-p", "."]);
      record("typecheck", { passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0 }, code);
      // core/tsconfig.json knows no Bun, Node or DOM types: a core source that reaches for one fails here.
      const core = await runCommand("typecheck-core", [bin("tsc"), "-p", "core"]);
      record(
        "typecheck-core",
        { passed: core.code === 0 ? 1 : 0, failed: core.code === 0 ? 0 : 1, skipped: 0 },
        core.code,
      );
      // The in-memory store, which hosts on any runtime give to the core: web platform types only.
      const memory = await runCommand("typecheck-store-memory", [bin("tsc"), "-p", "adapters/store-memory"]);
      record(
        "typecheck-store-memory",
        { passed: memory.code === 0 ? 1 : 0, failed: memory.code === 0 ? 0 : 1, skipped: 0 },
        memory.code,
      );
    },
  },
  {
    name: "core-deno",
    async run() {
      const check = await runCommand("core-deno-check", [
        bin("deno"),
        "check",
        "core/index.ts",
        "adapters/store-memory/memory.stores.ts",
      ]);
      record(
        "core-deno-check",
        { passed: check.code === 0 ? 1 : 0, failed: check.code === 0 ? 0 : 1, skipped: 0 },
        check.code,
      );
      const { code, output } = await runCommand("core-deno", [bin("deno"), "test", "--allow-read", "core/"]);
      record("core-deno", denoCounts(output), code);
    },
  },
  {
    name: "bun-test",
    async run() {
      const { code, output } = await runCommand("bun-test", [
        bin("bun"),
        "test",
        ...bunTestTimeout,
        "core",
        "adapters",
        "harness",
        "tools",
        "launcher",
        "bin",
        "client",
      ]);
      record("bun-test", bunCounts(output), code);
    },
  },
  {
    name: "conformance-in-process",
    async run() {
      const { code, output } = await runCommand("conformance-in-process", [
        bin("bun"),
        "harness/cli.ts",
        "--in-process",
        join(root, "conformance", "implementations", "svc-hub", "in-process.ts"),
        "--impl",
        "svc-hub",
        "--report-dir",
        join(outputDir, "conformance-in-process"),
      ]);
      record("conformance-in-process", harnessCounts(output), code);
    },
  },
  {
    name: "conformance-server",
    async run() {
      // The matrix this run makes goes to test-output/: npm test leaves the working tree as it found it, and
      // the committed COMPATIBILITY.md (written by `npm run compatibility`) must say the same.
      const made = join(outputDir, "COMPATIBILITY.md");
      try {
        const run = await runSuiteAgainstServer(
          root,
          ["--report-dir", join(outputDir, "conformance-server"), "--compatibility", made],
          (command) => runCommand("conformance-server", command),
          join(outputDir, "conformance-server.server.log"),
        );
        record("conformance-server", harnessCounts(run.output), run.code);
        record(
          "server-clean-stop",
          { passed: run.serverExitCode === 0 ? 1 : 0, failed: run.serverExitCode === 0 ? 0 : 1, skipped: 0 },
          run.serverExitCode,
        );
        const current =
          existsSync(made) && readFileSync(made, "utf8") === readFileSync(join(root, "COMPATIBILITY.md"), "utf8");
        if (!current)
          process.stdout.write(
            "compatibility-current: COMPATIBILITY.md differs from what this run found (test-output/COMPATIBILITY.md): run `npm run compatibility` and commit it\n",
          );
        record(
          "compatibility-current",
          { passed: current ? 1 : 0, failed: current ? 0 : 1, skipped: 0 },
          current ? 0 : 1,
        );
      } catch (error) {
        process.stderr.write(`conformance-server: ${error instanceof Error ? error.message : String(error)}\n`);
        record("conformance-server", { passed: 0, failed: 1, skipped: 0 }, 1);
      }
    },
  },
  {
    name: "conformance-postgres",
    async run() {
      // The same suite against svc-hub on the PostgreSQL store: a real server, started here on a free port with
      // a throwaway folder (Debian's postgresql, installed first when missing).
      let postgres: PostgresServer | null = null;
      try {
        postgres = await startPostgresServer({ log: (line) => process.stdout.write(`${line}\n`) });
        const run = await runSuiteAgainstServer(
          root,
          ["--report-dir", join(outputDir, "conformance-postgres")],
          (command) => runCommand("conformance-postgres", command),
          join(outputDir, "conformance-postgres.server.log"),
          { env: { SVC_STORE: "postgres", SVC_DATABASE_URL: await postgres.createDatabase("svc") } },
        );
        record("conformance-postgres", harnessCounts(run.output), run.code);
        // Three nodes on one database: the management APIs on the first, collection on the second, the
        // visitor-data API on the third; every scenario must pass as on one node.
        const cluster = await runSuiteAgainstServer(
          root,
          ["--report-dir", join(outputDir, "conformance-cluster")],
          (command) => runCommand("conformance-cluster", command),
          join(outputDir, "conformance-cluster.server.log"),
          { env: { SVC_STORE: "postgres", SVC_DATABASE_URL: await postgres.createDatabase("cluster") }, nodes: 3 },
        );
        record("conformance-cluster", harnessCounts(cluster.output), cluster.code);
      } catch (error) {
        process.stderr.write(`conformance-postgres: ${error instanceof Error ? error.message : String(error)}\n`);
        record("conformance-postgres", { passed: 0, failed: 1, skipped: 0 }, 1);
      } finally {
        await postgres?.stop();
      }
    },
  },
  {
    name: "executable",
    async run() {
      const build = await runCommand("executable-build", [bin("bun"), "tools/build-exe.ts", "--target", "all"]);
      record(
        "executable-build",
        { passed: build.code === 0 ? 1 : 0, failed: build.code === 0 ? 0 : 1, skipped: 0 },
        build.code,
      );
      if (build.code !== 0) return;
      // The whole suite against the linux-x64 executable, copied alone into an empty folder: no node_modules.
      const copy = copyToEmptyFolder("linux-x64");
      try {
        const run = await runSuiteAgainstServer(
          root,
          ["--report-dir", join(outputDir, "conformance-executable")],
          (command) => runCommand("conformance-executable", command),
          join(outputDir, "conformance-executable.server.log"),
          { server: { command: [copy.path], cwd: copy.dir } },
        );
        record("conformance-executable", harnessCounts(run.output), run.code);
        record(
          "executable-clean-stop",
          { passed: run.serverExitCode === 0 ? 1 : 0, failed: run.serverExitCode === 0 ? 0 : 1, skipped: 0 },
          run.serverExitCode,
        );
      } catch (error) {
        process.stderr.write(`conformance-executable: ${error instanceof Error ? error.message : String(error)}\n`);
        record("conformance-executable", { passed: 0, failed: 1, skipped: 0 }, 1);
      } finally {
        rmSync(copy.dir, { recursive: true, force: true });
      }
      const { code, output } = await runCommand("executable", [
        bin("bun"),
        "test",
        ...bunTestTimeout,
        "./e2e/executable.e2e.ts",
      ]);
      record("executable", bunCounts(output), code);
    },
  },
  {
    name: "reliability",
    async run() {
      // FUZZ_RUNS (default 1,000 per route) and FUZZ_SEED pass through for the longer variant.
      const { code, output } = await runCommand("reliability", [
        bin("bun"),
        "test",
        ...bunTestTimeout,
        "./reliability",
      ]);
      record("reliability", bunCounts(output), code);
    },
  },
  {
    name: "browser-e2e",
    async run() {
      // Its own step, so that a first install of Chromium shows its output and a refusal says what to do.
      const chromium = await runCommand("browser-e2e-chromium", [bin("bun"), "tools/ensure-chromium.ts"]);
      if (chromium.code === chromiumUnavailableExitCode && browserSuiteWhenUnavailable(process.env) === "skip") {
        process.stdout.write(
          "browser-e2e: skipped, Chromium cannot be had on this machine (above); CI runs it (CI or SVC_REQUIRE_BROWSER set fails instead)\n",
        );
        record("browser-e2e", { passed: 0, failed: 0, skipped: 1 }, 0);
        return;
      }
      if (chromium.code !== 0) {
        record("browser-e2e", { passed: 0, failed: 1, skipped: 0 }, chromium.code);
        return;
      }
      const { code, output } = await runCommand("browser-e2e", [
        bin("bun"),
        "test",
        "./e2e/browser.e2e.ts",
        "./e2e/console.e2e.ts",
      ]);
      record("browser-e2e", bunCounts(output), code);
    },
  },
  {
    name: "image",
    async run() {
      // Its own step, like Chromium's: a first install of podman and the making of the base image (minutes) show
      // their output, and a machine that cannot have podman says so (exit 3).
      const podman = await runCommand("image-podman", [bin("bun"), "tools/ensure-podman.ts"]);
      if (podman.code === packageUnavailableExitCode && suiteWhenUnavailable(process.env) === "skip") {
        process.stdout.write(
          "image: skipped, podman cannot be had on this machine (above); CI runs it (CI or SVC_REQUIRE_BROWSER set fails instead)\n",
        );
        record("image", { passed: 0, failed: 0, skipped: 1 }, 0);
        return;
      }
      if (podman.code !== 0) {
        record("image", { passed: 0, failed: 1, skipped: 0 }, podman.code);
        return;
      }
      // Builds the executable and the image, runs the whole conformance suite against a container of it.
      const { code, output } = await runCommand("image", [bin("bun"), "test", "./e2e/image.e2e.ts"]);
      record("image", bunCounts(output), code);
    },
  },
  {
    name: "busy",
    async run() {
      // The conformance runs and the browser suites again, three rounds while a CPU hog holds every core busy
      // (tools/test-busy.ts); it needs stress-ng and Chromium, which it installs, or says it cannot (exit 3).
      const { code, output } = await runCommand("busy", [bin("bun"), "tools/test-busy.ts"]);
      if (code === packageUnavailableExitCode && suiteWhenUnavailable(process.env) === "skip") {
        process.stdout.write(
          "busy: skipped, stress-ng or Chromium cannot be had on this machine (above); CI runs it (CI or SVC_REQUIRE_BROWSER set fails instead)\n",
        );
        record("busy", { passed: 0, failed: 0, skipped: 1 }, 0);
        return;
      }
      record("busy", harnessCounts(output), code);
    },
  },
];

// A mistyped suite name would run nothing and print `0 passed, 0 failed`: a green run that tested nothing.
const unknown = only.filter((name) => !suites.some((suite) => suite.name === name));
if (unknown.length > 0) {
  process.stderr.write(
    `test-all: no suite named ${unknown.join(", ")}; the suites are ${suites.map((suite) => suite.name).join(", ")}\n`,
  );
  process.exit(2);
}

for (const suite of suites) {
  if (only.length > 0 && !only.includes(suite.name)) continue;
  await suite.run();
}

process.stdout.write(`\n=== summary\n${suiteLines.join("\n")}\n`);
process.stdout.write(`${countsLine(totals)}\n`);
process.exit(totals.failed > 0 ? 1 : 0);
