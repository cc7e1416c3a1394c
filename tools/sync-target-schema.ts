/**
 * Writes conformance/target.schema.json, the JSON Schema of a conformance target file, from the schema the
 * conformance CLI checks target files with (harness/target-file.ts, TargetFileSchema, from which the TargetFile
 * type is derived).
 *   bun tools/sync-target-schema.ts
 * harness/target-file.test.ts fails while the file differs from what this writes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { targetFileJsonSchema } from "../harness/target-file.ts";

const target = join(import.meta.dir, "..", "conformance", "target.schema.json");
writeFileSync(target, `${JSON.stringify(targetFileJsonSchema(), null, 2)}\n`);
process.stdout.write(`the target file's JSON Schema written to ${target}\n`);
