/**
 * Writes conformance/clauses.json, the catalogue of clause and decision IDs the suite reports on, from the
 * interface's clause list (clauses.md) and decisions (decisions.md).
 *   bun tools/sync-clauses.ts [spec-dir]      (default ../shared/spec)
 * The conformance suite ships the catalogue, so it runs anywhere without the spec folder beside it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseClauseCatalogue } from "../harness/clauses.ts";

const specDir = resolve(process.argv[2] ?? join(import.meta.dir, "..", "..", "shared", "spec"));
const catalogue = parseClauseCatalogue(
  readFileSync(join(specDir, "clauses.md"), "utf8"),
  readFileSync(join(specDir, "decisions.md"), "utf8"),
);
const target = join(import.meta.dir, "..", "conformance", "clauses.json");
writeFileSync(target, `${JSON.stringify(catalogue, null, 2)}\n`);
process.stdout.write(`${catalogue.length} IDs written to ${target}\n`);
