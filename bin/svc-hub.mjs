#!/usr/bin/env node
/**
 * `npx svc-hub [command]` in a project that installed svc-hub. Without a command it starts the server as
 * `npm start` does in this repository; `publish`, `admin-token`, `conformance` and `hash-secret` run the
 * TypeScript tools of a clone's npm scripts; `events`, `wait`, `reset` and `health` call a running server
 * (bin/svc-hub-commands.mjs holds the commands, shared with the single executable). Plain JavaScript because
 * npm runs a package's bin with Node, which cannot run the server's TypeScript: it hands over to Bun.
 *
 * The working directory stays the caller's, so `svc.config.json` (or .yaml, .yml) and the default
 * `./.svc-data` are the project's, never inside node_modules/svc-hub.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { handOverToBun, packageRoot } from "../launcher/server-command.mjs";
import { runSvcHub } from "./svc-hub-commands.mjs";

/** The TypeScript each tool of a clone's npm scripts runs, with the arguments it takes first. */
const tools = {
  publish: ["adapters/cli/svc.ts", "publish"],
  "admin-token": ["adapters/cli/svc.ts", "admin-token"],
  conformance: ["harness/cli.ts"],
  "hash-secret": ["adapters/cli/hash-secret.ts"],
};

await runSvcHub(process.argv.slice(2), {
  version: () => JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")).version,
  start: (env) => handOverToBun("svc-hub", "adapters/server/main.ts", [], env),
  runTool(name, args) {
    const [script, ...first] = tools[name];
    handOverToBun("svc-hub", script, [...first, ...args]);
  },
});
