import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repository = resolve(import.meta.dir, "..");

/**
 * A project that installed svc-hub, laid out as npm would, without asking a registry: node_modules/svc-hub is
 * this repository (a symlink, as `npm install <folder>` makes) and node_modules/.bin/svc-hub links the
 * package's bin, as npm links it. Its `bun` dependency resolves from the repository's node_modules. The
 * caller removes the folder.
 */
export function makeConsumerProject(): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), "svc-hub-consumer-")));
  mkdirSync(join(folder, "node_modules", ".bin"), { recursive: true });
  writeFileSync(
    join(folder, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }),
  );
  symlinkSync(repository, join(folder, "node_modules", "svc-hub"), "dir");
  const { bin } = JSON.parse(readFileSync(join(repository, "package.json"), "utf8")) as { bin: Record<string, string> };
  for (const [name, path] of Object.entries(bin))
    symlinkSync(join("..", "svc-hub", path), join(folder, "node_modules", ".bin", name));
  return folder;
}

/** A consumer project (makeConsumerProject) whose removal is added to a test file's `cleanups`. */
export function consumerProjectCleanedBy(cleanups: Array<() => unknown>): string {
  const folder = makeConsumerProject();
  cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/**
 * This process's environment without what would choose the server's settings for it (PORT, SVC_*, npm's
 * INIT_CWD): a developer's shell may have them set for a server of their own.
 */
export function environmentWithoutServerSettings(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && entry[0] !== "PORT" && entry[0] !== "INIT_CWD" && !entry[0].startsWith("SVC_"),
    ),
  );
}
