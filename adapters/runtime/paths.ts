import { resolve } from "node:path";
import { type Env, settingOf } from "./server-settings.ts";

/**
 * A path as the user typed it, read from the folder the command was run in: `npm start` and `npm run` move
 * the working directory to the project root and say in INIT_CWD where the command was typed.
 */
export function fromInvocation(path: string, env: Env = process.env): string {
  return resolve(env.INIT_CWD ?? process.cwd(), path);
}

/**
 * The data directory: SVC_DATA_DIR as typed, or `./.svc-data` of the working directory: this repository under
 * `npm start`; the project's folder under `npx svc-hub` (bin/svc-hub.mjs), which keeps the caller's. The server
 * and the svc CLI both read it here.
 */
export function dataDirFromEnv(env: Env = process.env): string {
  const named = settingOf(env, "SVC_DATA_DIR");
  return named ? fromInvocation(named, env) : resolve("./.svc-data");
}

/** The configuration files looked for, in this order, in the working directory (as for `./.svc-data`) when SVC_CONFIG is not set. */
export const defaultConfigFiles: readonly string[] = ["svc.config.json", "svc.config.yaml", "svc.config.yml"];
