/**
 * The conformance runner. `bun harness/cli.ts --target http://localhost:8080` runs every scenario against a
 * running implementation; `--in-process <module>` runs them against the fetch handler a module exports, without
 * a socket. The scenarios come from `--scenarios <module>` (default: this package's conformance/index.ts). It
 * imports neither statically: the engine holds no implementation and no scenarios. `--help` lists the options.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import packageJson from "../package.json" with { type: "json" };
import { adminTokenCheckRoute, checkAdminToken } from "./admin-token.ts";
import { capabilityDefinitions, capabilityNames, neededCapabilities, probeCapabilities } from "./capabilities.ts";
import { catalogueOfIds } from "./clauses.ts";
import { type Expectations, loadExpectations, loadExpectationsFile, staleExpectations } from "./expectations.ts";
import { checkFixtureApiKeys, checkFixtureLogins } from "./fixture-check.ts";
import {
  type InProcessModule,
  implementationsDirOf,
  loadInProcessModule,
  loadScenarioModule,
  packageScenariosPath,
  resolveModule,
  type ScenarioModule,
} from "./modules.ts";
import { defaultPropertySeed } from "./property.ts";
import { checkReachable } from "./reachability.ts";
import { buildCompatibilityMarkdown, buildJsonReport, buildJunitXml, type RunInfo } from "./report.ts";
import {
  areasOf,
  countOutcomes,
  formatResult,
  runScenarios,
  selectScenarios,
  summaryLine,
  tally,
  unmatchedSelections,
} from "./runner.ts";
import { demoFixtures, inProcessTarget, type Target, urlTarget } from "./target.ts";
import { fixturesOf, readTargetFile, type TargetFile } from "./target-file.ts";

/** fast-check takes a 32-bit seed and would silently cut a larger one down: refused instead. */
const maxSeed = 4_294_967_295;

const capabilityLines = capabilityNames.map((name) => `    ${name}: ${capabilityDefinitions[name].what}`).join("\n");

function usage(areas: readonly string[]): string {
  return `usage: svc-hub-conformance (--target <base-url> | --target-file <file.json> | --in-process <module>) [options]
       (npx svc-hub-conformance where svc-hub is installed; bun harness/cli.ts or npm run conformance -- in its checkout)

  --target <url>          the management root ({base_url}) of the implementation
  --collect-url <url>     the collection root ({collect_url}); default: the target
  --moments-url <url>     the visitor-data root ({moments_url}); default: the target
  --target-file <file>    JSON with base/collect/moments/adminToken and the fixtures: the tenants, users and keys to
                          use, and the attributes, audience, badge, engines, file definition and published revision
                          the scenarios read (schema: conformance/target.schema.json; example:
                          conformance/targets/svc-hub-demo.json; a fixture left out is the demo tenants' value, but
                          an optional one, such as engines.attributesOnly, is absent and the scenarios needing it
                          are skipped); flags win over the file
  --in-process <module>   run without a socket against the fetch handler the module exports (and its optional
                          adminToken, fixtures, name and close); svc-hub's is
                          conformance/implementations/svc-hub/in-process.ts
  --scenarios <module>    the scenarios to run: a module exporting allScenarios (and optionally clauseCatalogue);
                          default: this package's conformance/index.ts (svc-hub/conformance)
  --admin-token <token>   the target's admin token (default SVC_ADMIN_TOKEN); scenarios needing it are skipped without
  --impl <name>           apply <the scenarios' folder>/implementations/<name>/expectations.json (known failures)
  --expectations <file>   apply known failures from a file of your own (same format), instead of --impl
  --only <selection>      run only the scenarios it selects; repeatable. A selection is a clause or decision ID
                          (SES-01, DEC-GEN-05) or the start of one (DLE, DEC-GEN), in any case; an area
                          (${areas.length > 0 ? areas.join(", ") : "as the scenarios name them"});
                          or a scenario's whole title, as a failure's replay line gives it. A value that selects
                          nothing stops the run (exit 2).
  --seed <n>              seed of every property run, 0 to ${maxSeed} (default ${defaultPropertySeed}, fixed so CI replays the same cases)
  --runs <n>              runs per property, at least 1 (default: each scenario's own)
  --path <path>           counterexample path to replay (digits and colons, such as 3:0:1), as a failure report gives
                          it; goes with --seed and with --only '<the scenario's whole title>', which must select
                          exactly one property scenario
  --report-dir <dir>      where report.json, junit.xml and COMPATIBILITY.md go (default ./conformance-report)
  --compatibility <file>  also write COMPATIBILITY.md to this file
  --timeout-ms <n>        limit per scenario (default 120000); a scenario over it is abandoned and reported as error

  Relative paths, and the modules, are taken from the directory you ran the command in (npm's INIT_CWD when run
  through \`npm --prefix <suite> run conformance\`), not from the suite's checkout; a module may also be a
  package's (svc-hub/conformance). The report folder and the --compatibility file are checked before any
  scenario runs: one that cannot be written stops the run (exit 2).
  Before the run, the runner checks that the target answers (GET /healthz at each root; no answer: exit 2),
  that the fixtures' users can log in (POST /v1/login) and that their API keys are accepted (POST /v2/auth): a
  login or key the target refuses (401) stops the run with exit code 2, naming the target file's field. With an
  admin token it also checks the token (POST ${adminTokenCheckRoute}, DEC-OPS-04; refused: exit 2) and probes
  the capabilities the selected scenarios need beyond the admin routes of DEC-OPS-04 (specified in
  conformance/INTERPRETING.md):
${capabilityLines}
  Without one, the scenarios that need it are skipped, each with that reason.`;
}

/** The areas of the scenarios, for --help and messages; none yet while the scenarios are being loaded. */
let areas: readonly string[] = [];

function fail(message: string): never {
  process.stderr.write(`conformance: ${message}\n${usage(areas)}\n`);
  process.exit(2);
}

/** Stops before or after the run on a problem of the environment (not of the command line): one line, exit 2. */
function stop(message: string): never {
  process.stderr.write(`conformance: ${message}\n`);
  process.exit(2);
}

function wholeNumber(
  name: string,
  raw: string | undefined,
  least = 0,
  most = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) fail(`--${name} takes a whole number, not "${raw}"`);
  const value = Number(raw);
  if (value < least) fail(`--${name} must be at least ${least}, not ${raw}`);
  if (value > most) fail(`--${name} must be at most ${most}, not ${raw}`);
  return value;
}

/** Where the user ran the command: npm sets INIT_CWD, since `npm --prefix <suite> run` moves the cwd into the suite. */
const invocationDir = process.env.INIT_CWD ?? process.cwd();
const fromInvocation = (path: string) => resolve(invocationDir, path);

function checkUrl(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http");
  } catch {
    fail(`--${name} must be an http(s) URL such as http://localhost:8080, not "${raw}"`);
  }
  return raw;
}

/**
 * Makes the report folder and the --compatibility file's folder, and checks both can be written, before any
 * scenario runs: a path that cannot take the reports must not cost a whole run and then a stack trace.
 */
function prepareOutputs(reportDir: string, compatibilityFile: string | null): void {
  try {
    if (existsSync(reportDir) && !statSync(reportDir).isDirectory()) throw new Error("it exists and is not a folder");
    mkdirSync(reportDir, { recursive: true });
    checkWritableFolder(reportDir);
  } catch (error) {
    stop(`--report-dir ${reportDir} cannot take the reports: ${reasonOf(error)}`);
  }
  if (compatibilityFile === null) return;
  try {
    if (existsSync(compatibilityFile) && statSync(compatibilityFile).isDirectory())
      throw new Error("it is a folder; give a file name, such as COMPATIBILITY.md");
    mkdirSync(dirname(compatibilityFile), { recursive: true });
    checkWritableFolder(dirname(compatibilityFile));
    if (existsSync(compatibilityFile)) accessSync(compatibilityFile, constants.W_OK);
  } catch (error) {
    stop(`--compatibility ${compatibilityFile} cannot be written: ${reasonOf(error)}`);
  }
}

/** Writes and removes a file in the folder: the one check that holds whatever the permissions model. */
function checkWritableFolder(folder: string): void {
  const probe = join(folder, `.conformance-write-check-${process.pid}`);
  writeFileSync(probe, "");
  unlinkSync(probe);
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  const known: Record<string, string> = {
    EEXIST: "a file of that name is in the way of a folder",
    ENOTDIR: "a part of the path is a file, not a folder",
    EACCES: "permission denied",
    EPERM: "permission denied",
    EROFS: "the file system is read-only",
    EISDIR: "it is a folder",
  };
  return code && known[code] ? `${known[code]} (${code})` : error.message;
}

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      target: { type: "string" },
      "collect-url": { type: "string" },
      "moments-url": { type: "string" },
      "target-file": { type: "string" },
      "in-process": { type: "string" },
      scenarios: { type: "string" },
      "admin-token": { type: "string" },
      impl: { type: "string" },
      expectations: { type: "string" },
      only: { type: "string", multiple: true },
      seed: { type: "string" },
      runs: { type: "string" },
      path: { type: "string" },
      "report-dir": { type: "string" },
      compatibility: { type: "string" },
      "timeout-ms": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    allowPositionals: false,
  });
}
// `--in-process` took no value before it took a module: say what it takes rather than parseArgs' "ambiguous".
const inProcessAt = process.argv.indexOf("--in-process");
if (inProcessAt >= 0 && (process.argv[inProcessAt + 1] ?? "-").startsWith("-"))
  fail(
    "--in-process takes the module that exports the implementation's fetch handler, such as conformance/implementations/svc-hub/in-process.ts (svc-hub's own)",
  );
try {
  parsed = parse();
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const values = parsed.values;

// The scenarios: a module the engine imports only now, by the path it was given (or this package's own).
const scenariosPath = (() => {
  try {
    if (values.scenarios !== undefined) return resolveModule(values.scenarios, invocationDir);
  } catch (error) {
    fail(`--scenarios: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (
    packageScenariosPath() ??
    fail("this package has no scenarios of its own: give --scenarios <module> (a module exporting allScenarios)")
  );
})();
let scenarioModule: ScenarioModule;
try {
  scenarioModule = await loadScenarioModule(scenariosPath);
} catch (error) {
  fail(`--scenarios: ${error instanceof Error ? error.message : String(error)}`);
}
const { allScenarios } = scenarioModule;
areas = areasOf(allScenarios);
if (values.help) {
  process.stdout.write(`${usage(areas)}\n`);
  process.exit(0);
}

let file: TargetFile | null = null;
try {
  file = values["target-file"] ? readTargetFile(fromInvocation(values["target-file"])) : null;
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const base =
  checkUrl("target", values.target) ?? (values["in-process"] ? undefined : checkUrl("target-file base", file?.base));
if (!base === !values["in-process"])
  fail("give exactly one of --target <base-url> (or a target file with base) or --in-process <module>");
let inProcessPath: string | null = null;
try {
  inProcessPath = values["in-process"] === undefined ? null : resolveModule(values["in-process"], invocationDir);
} catch (error) {
  fail(`--in-process: ${error instanceof Error ? error.message : String(error)}`);
}

if (values.impl && values.expectations) fail("give at most one of --impl <name> and --expectations <file>");
let expectations: Expectations | null = null;
const expectationsFile = values.expectations ? fromInvocation(values.expectations) : null;
try {
  expectations = expectationsFile
    ? loadExpectationsFile(expectationsFile)
    : values.impl
      ? loadExpectations(values.impl, implementationsDirOf(scenariosPath))
      : null;
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const seed = wholeNumber("seed", values.seed, 0, maxSeed) ?? defaultPropertySeed;
if (values.path !== undefined) {
  if (!/^\d+(:\d+)*$/.test(values.path))
    fail(
      `--path takes a counterexample path of digits and colons such as 3:0:1, as a failure report gives it, not "${values.path}"`,
    );
  if (!values.only?.length)
    fail(
      "--path replays one property's counterexample: give its scenario with --only '<the scenario's whole title>' (and the --seed of the failure)",
    );
}
const unmatched = unmatchedSelections(allScenarios, values.only);
if (unmatched.length > 0) {
  fail(
    `${unmatched.map((value) => `--only "${value}"`).join(", ")} ${unmatched.length === 1 ? "selects" : "select"} no scenario; ` +
      `give a clause or decision ID (SES-01), the start of one (DEC-GEN), an area (${areas.join(", ")}) or a scenario's whole title`,
  );
}
if (values.path !== undefined && values.only?.length) {
  // A path names a case of one property: with several scenarios selected it would be replayed against each.
  const chosen = selectScenarios(allScenarios, values.only);
  if (chosen.length !== 1 || chosen[0]?.kind !== "property") {
    const which =
      chosen.length === 1 ? `"${chosen[0]?.title}", which is not a property scenario` : `${chosen.length} scenarios`;
    fail(
      `--path replays one property's counterexample: --only must select exactly one property scenario (by its whole title), not ${which}`,
    );
  }
}
const runs = wholeNumber("runs", values.runs, 1);
const timeoutMs = wholeNumber("timeout-ms", values["timeout-ms"], 1);

const reportDir = fromInvocation(values["report-dir"] ?? "conformance-report");
const compatibilityFile = values.compatibility ? fromInvocation(values.compatibility) : null;
prepareOutputs(reportDir, compatibilityFile);

// The implementation in-process: a module the engine imports only now, which builds it.
let implementation: InProcessModule | null = null;
if (inProcessPath !== null) {
  try {
    implementation = await loadInProcessModule(inProcessPath);
  } catch (error) {
    stop(`--in-process: ${error instanceof Error ? error.message : String(error)}`);
  }
}
// The fixtures: a target file's, over the in-process module's (an implementation's demo may have optional ones),
// over demo.md's tenants.
const fixtures = fixturesOf(
  file,
  implementation?.fixtures ? fixturesOf({ fixtures: implementation.fixtures }) : demoFixtures,
);
const adminToken =
  values["admin-token"] ?? file?.adminToken ?? implementation?.adminToken ?? process.env.SVC_ADMIN_TOKEN ?? null;

let target: Target;
let close: () => Promise<void> = async () => undefined;
if (implementation !== null) {
  target = inProcessTarget({
    handle: implementation.fetch,
    adminToken,
    fixtures,
    name: file?.name ?? implementation.name,
  });
  const closeImplementation = implementation.close;
  if (closeImplementation) close = async () => void (await closeImplementation());
} else {
  target = urlTarget({
    base: base as string,
    collect: checkUrl("collect-url", values["collect-url"]) ?? checkUrl("target-file collect", file?.collect),
    moments: checkUrl("moments-url", values["moments-url"]) ?? checkUrl("target-file moments", file?.moments),
    adminToken,
    fixtures,
    name: file?.name,
  });
}

const selected = selectScenarios(allScenarios, values.only);
// Each check stops the run with one line (exit 2) rather than letting every scenario fail for the same cause.
for (const check of [checkReachable, checkAdminToken, checkFixtureLogins, checkFixtureApiKeys]) {
  const found = await check(target);
  if (!found.ok) {
    await close();
    stop(found.reason);
  }
}
// The capabilities beyond DEC-OPS-04 the selected scenarios need, probed once: a scenario needing one the target
// has not is skipped, and the run says how many before it starts.
const capabilities = await probeCapabilities(target, selected);
for (const { capability, scenarios } of neededCapabilities(selected)) {
  const probe = capabilities[capability];
  if (probe && !probe.available)
    process.stdout.write(`conformance: ${scenarios} scenario(s) will be skipped: ${probe.reason}\n`);
}
process.stdout.write(
  `conformance: ${selected.length} of ${allScenarios.length} scenarios against ${target.name} (property seed ${seed}${runs ? `, ${runs} runs each` : ""})\n`,
);
const startedAt = new Date();
const results = await runScenarios(allScenarios, target, {
  only: values.only,
  timeoutMs,
  property: { seed, runs, path: values.path },
  expectations,
  capabilities,
  onResult: (result) => process.stdout.write(`${formatResult(result)}\n`),
});
await close();

const info: RunInfo = {
  target: target.name,
  implementation: values.impl ?? expectations?.implementation ?? null,
  suiteVersion: packageJson.version,
  startedAt: startedAt.toISOString(),
  durationMs: Date.now() - startedAt.getTime(),
  propertySeed: seed,
  propertyRuns: runs ?? null,
};
const stale = staleExpectations(expectations, allScenarios, results);
const named = allScenarios.flatMap((scenario) => scenario.clauses);
const compatibility = buildCompatibilityMarkdown(
  info,
  results,
  scenarioModule.clauseCatalogue ?? catalogueOfIds(named),
  new Set(named),
);
const outputs: Array<[string, string]> = [
  [join(reportDir, "report.json"), `${JSON.stringify(buildJsonReport(info, results, stale), null, 2)}\n`],
  [join(reportDir, "junit.xml"), buildJunitXml(info, results, stale)],
  [join(reportDir, "COMPATIBILITY.md"), compatibility],
  ...(compatibilityFile ? [[compatibilityFile, compatibility] as [string, string]] : []),
];
for (const [path, text] of outputs) {
  try {
    writeFileSync(path, text);
  } catch (error) {
    // Checked before the run; this is for a path that changed meanwhile.
    stop(`${path} could not be written after the run: ${reasonOf(error)}`);
  }
}

const expectationsSource = expectationsFile ?? `${values.impl}'s expectations.json`;
for (const entry of stale)
  process.stdout.write(`! stale expectation: ${entry}; remove it from ${expectationsSource}\n`);
const counts = countOutcomes(results);
process.stdout.write(
  `reports: ${reportDir}/report.json, junit.xml, COMPATIBILITY.md\n` +
    `outcomes: ${counts.pass} pass, ${counts["expected-fail"]} expected-fail, ${counts["unexpected-pass"]} unexpected-pass, ${counts.fail} fail, ${counts.error} error, ${counts.skip} skip\n`,
);
const summary = tally(results);
const failed = summary.failed + stale.length;
process.stdout.write(`${summaryLine({ ...summary, failed })}\n`);
process.exit(failed > 0 ? 1 : 0);
