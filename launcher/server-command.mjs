/**
 * How to run the svc-hub server from Node: the Bun binary that the `bun` npm dependency installs, with the
 * server's entry point. `bin/svc-hub.mjs` (npx svc-hub) and `launcher.mjs` (startSvcHub) both start it from
 * here, so they run the same Bun the same way.
 *
 * Plain JavaScript, no TypeScript: Node 20 runs this file as it is.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder of the svc-hub package (the repository, or node_modules/svc-hub of a project that installed it). */
export const packageRoot = fileURLToPath(new URL("..", import.meta.url));
/** What `npm start` runs. */
export const serverEntry = join(packageRoot, "adapters", "http", "main.ts");

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
