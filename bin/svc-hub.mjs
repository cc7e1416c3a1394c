#!/usr/bin/env node
/**
 * `npx svc-hub` in a project that installed svc-hub: starts the server as `npm start` does in this repository,
 * configured by the same environment variables (docs/running-it-yourself.md). A shim in plain JavaScript because npm
 * runs a package's bin with Node, which cannot run the server's TypeScript: it hands over to Bun.
 *
 * The working directory stays the caller's, so `svc.config.json` (or .yaml, .yml) and the default
 * `./.svc-data` are the project's, never inside node_modules/svc-hub.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { describeSpawnFailure, packageRoot, serverCommand } from "../launcher/server-command.mjs";

const usage = `Usage: svc-hub

Starts svc-hub in this folder: its configuration is ./svc.config.json, .yaml or .yml when present (else the
demo tenants), its data ./.svc-data. It takes no arguments; environment variables configure it:
PORT, SVC_HOST, SVC_DATA_DIR, SVC_CONFIG, SVC_ADMIN_TOKEN, SVC_TIMING, SVC_STORE, SVC_LOG_LEVEL,
SVC_BACKGROUND (see docs/running-it-yourself.md in svc-hub). SIGINT or SIGTERM stop it (exit code 0).
`;

const args = process.argv.slice(2);
if (args.length > 0) {
  if (args[0] === "--version" || args[0] === "-v") {
    process.stdout.write(`${JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")).version}\n`);
    process.exit(0);
  }
  const asked = args[0] === "--help" || args[0] === "-h";
  // Anything else would start a server the caller did not mean to (a flag they expect to configure it).
  (asked ? process.stdout : process.stderr).write(asked ? usage : `svc-hub: unknown argument ${args[0]}\n\n${usage}`);
  process.exit(asked ? 0 : 2);
}

let command;
try {
  command = serverCommand();
} catch (error) {
  process.stderr.write(`svc-hub: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}

const child = spawn(command.command, command.args, { stdio: "inherit" });
// A terminal's Ctrl-C reaches both processes; a supervisor's SIGTERM reaches only this one. The server stops
// cleanly on either, and once only however many arrive.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("error", (error) => {
  process.stderr.write(`svc-hub: ${describeSpawnFailure(command.command, error)}\n`);
  process.exit(2);
});
// The server's exit code is this command's; killed by a signal, the shell's convention (128 + its number).
child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
