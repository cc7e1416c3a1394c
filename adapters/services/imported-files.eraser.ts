import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "csv-parse";
import type { FileDefinition } from "../../core/config/config.model.ts";
import { prefixOfFileName } from "../../core/files/file-name.rules.ts";
import type { PrivacyTransaction } from "../../core/ports/privacy.store.ts";
import type { Stores } from "../../core/ports/stores.ts";
import type { Logger } from "../runtime/logger.ts";

/** What erasing the kept copies of imported files removed, for the audit. */
export interface ImportedFilesErasure extends Record<string, number> {
  /** Files rewritten without the visitor's rows. */
  readonly importedFiles: number;
  readonly importedRows: number;
  /** Files holding the visitor's attribute whose import had not finished, left as they are. */
  readonly importsUnfinished: number;
}

/** A byte range [start, end) of a file: one CSV record with its line end. */
type Range = readonly [number, number];

/**
 * PRV-09, DEC-PRV-04 ("imported rows"): the file import keeps every file it received under
 * `files/{account}/{profile}/` in the data directory. Their rows became events, which the deletion removes;
 * this removes the rows themselves: every finished import's file whose definition maps its visitor ID
 * column to the deleted attribute is rewritten without the records whose visitor ID (trimmed, as the
 * import reads it) is the deleted value. The records' bytes are first overwritten with zeros in place,
 * then the file is replaced by a copy without them (written beside it and renamed over it), so neither
 * the file nor its directory entry keeps them. Running it again finds nothing more to remove.
 *
 * An import still running reads its file by position, so its file is left alone (the deletion worker
 * finishes this node's imports before it erases; what is left is counted in `importsUnfinished`).
 * Files refused at the drop folder (`inbox/.../rejected/`) were never imported and stay the operator's.
 */
export async function eraseFromImportedFiles(
  deps: { readonly stores: Stores; readonly dataDir: string; readonly logger?: Logger },
  transaction: PrivacyTransaction,
): Promise<ImportedFilesErasure> {
  const erased = { importedFiles: 0, importedRows: 0, importsUnfinished: 0 };
  const { account, profile } = transaction;
  if (transaction.value === null) return erased;
  const config = (await deps.stores.tenancy.findProfile(account, profile))?.config;
  const definitions = (config?.fileDefinitions ?? []).filter((definition) => definition.visitorId.attribute === transaction.attributeId);
  if (definitions.length === 0) return erased;
  const prefixes = (config?.fileDefinitions ?? []).map((definition) => definition.prefix);

  const folder = join(deps.dataDir, "files", account, profile);
  const names = (await readdir(folder, { withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isFile() && entry.name.endsWith(".csv") && !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .sort();
  for (const name of names) {
    const definition = definitions.find((candidate) => candidate.prefix === prefixOfFileName(name, prefixes));
    if (!definition) continue;
    const path = join(folder, name);
    const ranges = await recordsOfVisitor(path, definition, transaction.value);
    if (ranges.length === 0) continue;
    const record = await deps.stores.files.find(account, profile, name);
    if (record && !record.finished) {
      erased.importsUnfinished += 1;
      deps.logger?.warn("a file holding a deleted visitor is still being imported; its copy is left as it is", { account, profile, file: name, transaction: transaction.id });
      continue;
    }
    await rewriteWithout(path, ranges);
    erased.importedFiles += 1;
    erased.importedRows += ranges.length;
  }
  return erased;
}

/** The byte ranges of the data records whose visitor ID column holds `value`. */
async function recordsOfVisitor(path: string, definition: FileDefinition, value: string): Promise<Range[]> {
  const parser = createReadStream(path).pipe(
    // The import's own reading of a file (both line ends, a BOM, ragged rows), with byte positions.
    parse({ bom: true, record_delimiter: ["\r\n", "\n"], info: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: false }),
  );
  const ranges: Range[] = [];
  let visitorIndex: number | null = null;
  let start = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { bytes: number } }>) {
      const end = info.bytes;
      if (visitorIndex === null) {
        visitorIndex = record.map((column) => column.trim()).indexOf(definition.visitorId.column.trim());
        if (visitorIndex === -1) break;
      } else if ((record[visitorIndex] ?? "").trim() === value) {
        ranges.push([start, end]);
      }
      start = end;
    }
  } catch {
    // A file the import could not read past a point: what was read before it is what became events.
  } finally {
    parser.destroy();
  }
  return ranges;
}

/** Zeroes the ranges in place, then replaces the file with a copy of everything outside them. */
async function rewriteWithout(path: string, ranges: readonly Range[]): Promise<void> {
  const temporary = join(path, "..", `.${randomBytes(6).toString("hex")}.erasing`);
  const source = await open(path, "r+");
  const target = await open(temporary, "w");
  try {
    const size = (await source.stat()).size;
    const buffer = Buffer.alloc(64 * 1024);
    let kept = 0;
    for (const [from, to] of [...ranges, [size, size] as const]) {
      for (let at = kept; at < from; ) {
        const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.length, from - at), at);
        if (bytesRead === 0) break;
        await target.write(buffer, 0, bytesRead);
        at += bytesRead;
      }
      kept = to;
    }
    await target.sync();
    for (const [from, to] of ranges) await source.write(Buffer.alloc(to - from), 0, to - from, from);
    await source.sync();
  } catch (error) {
    await target.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  } finally {
    await source.close().catch(() => undefined);
  }
  await target.close();
  await rename(temporary, path);
}
