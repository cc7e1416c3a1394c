/**
 * How to run the svc-hub server from Node: the Bun binary that the `bun` npm dependency installs, with the
 * server's entry point. `bin/svc-hub.mjs` (npx svc-hub) and `launcher.mjs` (startSvcHub) both start it from
 * here, so they run the same Bun the same way.
 *
 * Plain JavaScript, no TypeScript: Node 20 runs this file as it is.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder of the svc-hub package (the repository, or node_modules/svc-hub of a project that installed it). */
export const packageRoot = fileURLToPath(new URL("..", import.meta.url));
/** What `npm start` runs. */
export const serverEntry = join(packageRoot, "adapters", "server", "main.ts");

/**
 * The Bun binary of the `bun` package as this package resolves it (its own node_modules, or the project's,
 * where npm hoists it), named by that package's `bin` field rather than a guessed path.
 */
export function findBun() {
  const require = createRequire(import.meta.url);
  let manifestPath;
  try {
    manifestPath = require.resolve("bun/package.json");
  } catch (error) {
    throw new Error(
      `svc-hub runs on Bun, from the npm package "bun" (a dependency of svc-hub), which is not installed next to ${packageRoot}: run npm install (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`,
    );
  }
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.bun;
  if (typeof bin !== "string")
    throw new Error(`the package "bun" at ${dirname(manifestPath)} names no "bun" in its "bin" field`);
  return join(dirname(manifestPath), bin);
}

/**
 * The command that starts the server in the caller's working directory: there it reads `svc.config.*` and
 * keeps `./.svc-data` by default.
 *
 * `--no-env-file`: Bun would otherwise load the `.env` files of that folder, which in a project using svc-hub
 * belong to the project's own app (its `PORT` would move svc-hub); the environment is the caller's, as with any
 * command. `--config`: svc-hub's own bunfig.toml, not the project's (whose `preload` would run in the server).
 */
export function serverCommand() {
  return { command: findBun(), args: ["--no-env-file", `--config=${join(packageRoot, "bunfig.toml")}`, serverEntry] };
}

/** Why a spawn of Bun failed, with what to do about it (the usual cause: the install script that replaces its placeholder never ran). */
export function describeSpawnFailure(command, error) {
  const code = error && typeof error === "object" && "code" in error ? ` (${error.code})` : "";
  return `could not run Bun at ${command}${code}: ${error instanceof Error ? error.message : String(error)}. The "bun" package puts its binary there in its install script: let that run (npm rebuild bun; where npm asks for install scripts to be allowed, npm install-scripts approve bun first)`;
}

/**
 * Runs `script` (a path inside the package) with `args` on the package's Bun, in the caller's working directory
 * and terminal, and ends this process with its exit code: what svc-hub's commands do once Node has started them.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP are passed on (a supervisor's SIGTERM reaches only this process). The child
 * is told to stop once this process is gone (SVC_STOP_WITH_PARENT, adapters/runtime/parent-watch.ts), and under
 * npm (`npx svc-hub`, an npm script) this process stops the child once npm is gone without passing a signal on.
 */
export function handOverToBun(name, script, args, env = process.env) {
  let bun;
  try {
    bun = findBun();
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const child = spawn(
    bun,
    ["--no-env-file", `--config=${join(packageRoot, "bunfig.toml")}`, join(packageRoot, script), ...args],
    { stdio: "inherit", env: { ...env, SVC_STOP_WITH_PARENT: "true" } },
  );
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  if ((env.npm_lifecycle_event ?? "") !== "") {
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      child.kill("SIGTERM");
    }, 500);
    watch.unref();
  }
  child.on("error", (error) => {
    process.stderr.write(`${name}: ${describeSpawnFailure(bun, error)}\n`);
    process.exit(2);
  });
  // The child's exit code is this command's; killed by a signal, the shell's convention (128 + its number).
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
}
