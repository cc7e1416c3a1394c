import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Every byte kept under a data directory: the database, its WAL and WAL index, the kept copies of imported
 * files. Tests of erasure look for a deleted value in it (PRV-09: nothing of it may remain). Throws when the
 * directory holds no database, so that a search of the wrong folder cannot pass by finding nothing.
 */
export function dataDirBytes(dataDir: string): Buffer {
  const files = readdirSync(dataDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  if (!files.some((path) => path.endsWith("svc-hub.db"))) throw new Error(`no svc-hub.db under ${dataDir}`);
  return Buffer.concat(files.map((path) => readFileSync(path)));
}
