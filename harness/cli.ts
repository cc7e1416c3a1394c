/**
 * The conformance runner: `bun run conformance -- --target http://localhost:8080` runs every scenario
 * against a running implementation; `--in-process` runs them against svc-hub's own app without a socket.
 *
 * Options: --target URL, --collect-url URL, --moments-url URL (default: the target), --in-process,
 * --admin-token TOKEN (default: SVC_ADMIN_TOKEN), --only ID-or-area (repeatable), --timeout-ms N.
 */
import { parseArgs } from "node:util";
import { allScenarios } from "../conformance/index.ts";
import { openInProcessTarget } from "./in-process.ts";
import { formatResult, runScenarios, summaryLine, tally } from "./runner.ts";
import { urlTarget, type Target } from "./target.ts";

const { values } = parseArgs({
  options: {
    target: { type: "string" },
    "collect-url": { type: "string" },
    "moments-url": { type: "string" },
    "in-process": { type: "boolean", default: false },
    "admin-token": { type: "string" },
    only: { type: "string", multiple: true },
    "timeout-ms": { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
  allowPositionals: false,
});

const usage = `usage: bun run conformance -- (--target <base-url> | --in-process) [--collect-url <url>] [--moments-url <url>]
                       [--admin-token <token>] [--only <clause-or-area>]... [--timeout-ms <n>]`;

if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
if (!values.target === !values["in-process"]) {
  process.stderr.write(`conformance: give exactly one of --target <base-url> or --in-process\n${usage}\n`);
  process.exit(2);
}

let target: Target;
let close: () => Promise<void> = async () => undefined;
if (values["in-process"]) {
  const opened = await openInProcessTarget();
  target = opened.target;
  close = opened.close;
} else {
  try {
    new URL(values.target as string);
  } catch {
    process.stderr.write(`conformance: --target must be a URL such as http://localhost:8080, not "${values.target}"\n`);
    process.exit(2);
  }
  target = urlTarget({
    base: values.target as string,
    collect: values["collect-url"],
    moments: values["moments-url"],
    adminToken: values["admin-token"] ?? process.env.SVC_ADMIN_TOKEN ?? null,
  });
}

process.stdout.write(`conformance: ${allScenarios.length} scenarios against ${target.name}\n`);
const results = await runScenarios(allScenarios, target, {
  only: values.only,
  timeoutMs: values["timeout-ms"] ? Number(values["timeout-ms"]) : undefined,
  onResult: (result) => process.stdout.write(`${formatResult(result)}\n`),
});
await close();
const counts = tally(results);
process.stdout.write(`${summaryLine(counts)}\n`);
process.exit(counts.failed > 0 ? 1 : 0);
