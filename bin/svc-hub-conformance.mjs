#!/usr/bin/env node
/**
 * `npx svc-hub-conformance` in a project that installed svc-hub: runs the conformance suite (harness/cli.ts)
 * against an implementation of the interface, with the arguments given (`--help` lists them); the same as
 * `svc-hub conformance`. A shim in plain JavaScript because npm runs a package's bin with Node, which cannot run
 * the suite's TypeScript: it hands over to Bun, the `bun` dependency's binary.
 *
 * The working directory stays the caller's: a target file, an expectations file, the scenarios or in-process
 * module and the report folder are taken from there (harness/cli.ts reads npm's INIT_CWD, else the working
 * directory). The suite's exit code is this command's (0 all passed, 1 something failed, 2 the run could not start).
 */
import { handOverToBun } from "../launcher/server-command.mjs";

handOverToBun("svc-hub-conformance", "harness/cli.ts", process.argv.slice(2));
