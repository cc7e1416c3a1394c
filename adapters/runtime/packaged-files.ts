/**
 * The files svc-hub reads from its own package at run time (migrations, the demo configuration, the console's
 * page, the threads' entry points), named by their path from the package root. In a checkout or an installed
 * package that is the file itself. In the single executable (tools/build-exe.ts) every module's
 * `import.meta.url` is that of the entry point it was bundled into (the executable's, or a thread's), and the build
 * embeds each of these files under the same path from the executable's root: a path relative to a module's own
 * file would point nowhere there.
 */
import { fileURLToPath } from "node:url";

/** True in the single executable that `npm run build:exe` makes, false under `bun` or Node. */
export const inSingleExecutable: boolean =
  (globalThis as { Bun?: { isStandaloneExecutable?: boolean } }).Bun?.isStandaloneExecutable === true;

/**
 * The package root: two folders up from this module (adapters/runtime/); in the executable, the root of the files
 * it embeds, with which every module's URL starts (`file:///$bunfs/root/`, a thread's entry point's included).
 */
const packageRoot = inSingleExecutable
  ? new URL(import.meta.url.match(/^.*?\/(?:\$bunfs|~BUN)\/root\//)?.[0] ?? new URL("./", import.meta.url))
  : new URL("../../", import.meta.url);

/** The URL of a file of the package, by its path from the package root (`adapters/threads/hashing-entry.ts`). */
export function packagedFileUrl(pathFromRoot: string): URL {
  return new URL(pathFromRoot, packageRoot);
}

/** The same as a file system path, for `node:fs` and the drizzle migrator. */
export function packagedFilePath(pathFromRoot: string): string {
  return fileURLToPath(packagedFileUrl(pathFromRoot));
}
