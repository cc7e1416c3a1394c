/**
 * The conformance runner. `bun run conformance -- --target http://localhost:8080` runs every scenario
 * against a running implementation; `--in-process` runs them against svc-hub's own app without a socket.
 * `--help` lists the options.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import packageJson from "../package.json" with { type: "json" };
import { allScenarios } from "../conformance/index.ts";
import { checkAdminToken } from "./admin-token.ts";
import { loadExpectations, loadExpectationsFile, staleExpectations, type Expectations } from "./expectations.ts";
import { openInProcessTarget } from "./in-process.ts";
import { defaultPropertySeed } from "./property.ts";
import { buildCompatibilityMarkdown, buildJsonReport, buildJunitXml, type RunInfo } from "./report.ts";
import { countOutcomes, formatResult, runScenarios, selectScenarios, summaryLine, tally } from "./runner.ts";
import { fixturesOf, readTargetFile, type TargetFile } from "./target-file.ts";
import { urlTarget, type Target } from "./target.ts";

const usage = `usage: bun run conformance -- (--target <base-url> | --target-file <file.json> | --in-process) [options]

  --target <url>          the management root ({base_url}) of the implementation
  --collect-url <url>     the collection root ({collect_url}); default: the target
  --moments-url <url>     the visitor-data root ({moments_url}); default: the target
  --target-file <file>    JSON with base/collect/moments/adminToken and the tenants, users and keys to use
                          (see conformance/targets/svc-hub-demo.json); flags win over the file
  --in-process            svc-hub's own app with its demo tenants, without a socket
  --admin-token <token>   svc-hub's admin token (default SVC_ADMIN_TOKEN); scenarios needing it are skipped without
  --impl <name>           apply conformance/implementations/<name>/expectations.json (known failures)
  --expectations <file>   apply known failures from a file of your own (same format), instead of --impl
  --only <id-or-area>     run only scenarios naming this clause ID, ID prefix (DEC-GEN) or area; repeatable
  --seed <n>              seed of every property run (default ${defaultPropertySeed}, fixed so CI replays the same cases)
  --runs <n>              runs per property, at least 1 (default: each scenario's own)
  --path <path>           counterexample path to replay, with --seed and --only, as a failure report gives it
  --report-dir <dir>      where report.json, junit.xml and COMPATIBILITY.md go (default ./conformance-report)
  --compatibility <file>  also write COMPATIBILITY.md to this file
  --timeout-ms <n>        limit per scenario (default 120000); a scenario over it is abandoned and reported as error

  Relative paths are taken from the directory you ran the command in (npm's INIT_CWD when run through
  \`npm --prefix <suite> run conformance\`), not from the suite's checkout.
  With an admin token, the runner first checks it (GET /admin/clock) and stops with exit code 2 if refused.`;

function fail(message: string): never {
  process.stderr.write(`conformance: ${message}\n${usage}\n`);
  process.exit(2);
}

function wholeNumber(name: string, raw: string | undefined, least = 0): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) fail(`--${name} takes a whole number, not "${raw}"`);
  const value = Number(raw);
  if (value < least) fail(`--${name} must be at least ${least}, not ${raw}`);
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

let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      target: { type: "string" },
      "collect-url": { type: "string" },
      "moments-url": { type: "string" },
      "target-file": { type: "string" },
      "in-process": { type: "boolean", default: false },
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
try {
  parsed = parse();
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const values = parsed.values;
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}

let file: TargetFile | null = null;
try {
  file = values["target-file"] ? readTargetFile(fromInvocation(values["target-file"])) : null;
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const base = checkUrl("target", values.target) ?? (values["in-process"] ? undefined : checkUrl("target-file base", file?.base));
if (!base === !values["in-process"]) fail("give exactly one of --target <base-url> (or a target file with base) or --in-process");

if (values.impl && values.expectations) fail("give at most one of --impl <name> and --expectations <file>");
let expectations: Expectations | null = null;
const expectationsFile = values.expectations ? fromInvocation(values.expectations) : null;
try {
  expectations = expectationsFile ? loadExpectationsFile(expectationsFile) : values.impl ? loadExpectations(values.impl) : null;
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const seed = wholeNumber("seed", values.seed) ?? defaultPropertySeed;
const runs = wholeNumber("runs", values.runs, 1);
const timeoutMs = wholeNumber("timeout-ms", values["timeout-ms"], 1);
const fixtures = fixturesOf(file);

let target: Target;
let close: () => Promise<void> = async () => undefined;
if (values["in-process"]) {
  const opened = await openInProcessTarget({ fixtures });
  target = opened.target;
  close = opened.close;
} else {
  target = urlTarget({
    base: base as string,
    collect: checkUrl("collect-url", values["collect-url"]) ?? checkUrl("target-file collect", file?.collect),
    moments: checkUrl("moments-url", values["moments-url"]) ?? checkUrl("target-file moments", file?.moments),
    adminToken: values["admin-token"] ?? file?.adminToken ?? process.env.SVC_ADMIN_TOKEN ?? null,
    fixtures,
    name: file?.name,
  });
}

const selected = selectScenarios(allScenarios, values.only);
if (selected.length === 0) {
  await close();
  fail(`--only ${values.only?.join(", ")} selects no scenario`);
}
const adminCheck = await checkAdminToken(target);
if (!adminCheck.ok) {
  await close();
  process.stderr.write(`conformance: ${adminCheck.reason}\n`);
  process.exit(2);
}
process.stdout.write(`conformance: ${selected.length} of ${allScenarios.length} scenarios against ${target.name} (property seed ${seed}${runs ? `, ${runs} runs each` : ""})\n`);
const startedAt = new Date();
const results = await runScenarios(allScenarios, target, {
  only: values.only,
  timeoutMs,
  property: { seed, runs, path: values.path },
  expectations,
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
const reportDir = fromInvocation(values["report-dir"] ?? "conformance-report");
const stale = staleExpectations(expectations, allScenarios);
mkdirSync(reportDir, { recursive: true });
writeFileSync(join(reportDir, "report.json"), `${JSON.stringify(buildJsonReport(info, results, stale), null, 2)}\n`);
writeFileSync(join(reportDir, "junit.xml"), buildJunitXml(info, results, stale));
const compatibility = buildCompatibilityMarkdown(info, results, undefined, new Set(allScenarios.flatMap((scenario) => scenario.clauses)));
writeFileSync(join(reportDir, "COMPATIBILITY.md"), compatibility);
if (values.compatibility) {
  const compatibilityFile = fromInvocation(values.compatibility);
  mkdirSync(dirname(compatibilityFile), { recursive: true });
  writeFileSync(compatibilityFile, compatibility);
}

const expectationsSource = expectationsFile ?? `${values.impl}'s expectations.json`;
for (const entry of stale) process.stdout.write(`! stale expectation: ${entry} matches no scenario; remove it from ${expectationsSource}\n`);
const counts = countOutcomes(results);
process.stdout.write(
  `reports: ${reportDir}/report.json, junit.xml, COMPATIBILITY.md\n` +
    `outcomes: ${counts.pass} pass, ${counts["expected-fail"]} expected-fail, ${counts["unexpected-pass"]} unexpected-pass, ${counts.fail} fail, ${counts.error} error, ${counts.skip} skip\n`,
);
const summary = tally(results);
const failed = summary.failed + stale.length;
process.stdout.write(`${summaryLine({ ...summary, failed })}\n`);
process.exit(failed > 0 ? 1 : 0);
