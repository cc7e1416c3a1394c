#!/usr/bin/env node
/**
 * `npx svc-hub-conformance` in a project that installed svc-hub: runs the conformance suite (harness/cli.ts)
 * against an implementation of the interface, with the arguments given (`--help` lists them). A shim in plain
 * JavaScript because npm runs a package's bin with Node, which cannot run the suite's TypeScript: it hands over
 * to Bun, the `bun` dependency's binary.
 *
 * The working directory stays the caller's: a target file, an expectations file, the scenarios or in-process
 * module and the report folder are taken from there (harness/cli.ts reads npm's INIT_CWD, else the working
 * directory).
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { join } from "node:path";
import { describeSpawnFailure, findBun, packageRoot } from "../launcher/server-command.mjs";

let bun;
try {
  bun = findBun();
} catch (error) {
  process.stderr.write(`svc-hub-conformance: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}

// `--no-env-file`: the project's .env files are its own app's; `--config`: svc-hub's bunfig.toml, not the project's.
const child = spawn(
  bun,
  [
    "--no-env-file",
    `--config=${join(packageRoot, "bunfig.toml")}`,
    join(packageRoot, "harness", "cli.ts"),
    ...process.argv.slice(2),
  ],
  { stdio: "inherit" },
);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("error", (error) => {
  process.stderr.write(`svc-hub-conformance: ${describeSpawnFailure(bun, error)}\n`);
  process.exit(2);
});
// The suite's exit code is this command's (0 all passed, 1 something failed, 2 the run could not start).
child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
