import { randomBytes } from "node:crypto";
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { FileDefinition } from "../../core/config/config.model.ts";
import { prefixOfFileName } from "../../core/files/file-name.rules.ts";
import type { ImportedFileEraser, ImportedFilesErasure } from "../../core/ports/imported-files.port.ts";
import type { Logger } from "../../core/ports/logger.port.ts";
import type { PrivacyTransaction } from "../../core/ports/privacy.store.ts";
import type { Stores } from "../../core/ports/stores.ts";
import { isErasedValue } from "../../core/privacy/erasure.rules.ts";
import type { VisitorLookup } from "../../core/privacy/privacy.rules.ts";
import { normaliseVisitorIdValue } from "../../core/visitors/visitor-id.rules.ts";
import { readCsvRecordBytes } from "./csv-rows.ts";
import { entriesOf } from "./folder-entries.ts";
import { ReceivedFiles } from "./received-files.ts";

export interface ImportedFilesEraserDeps {
  readonly stores: Stores;
  readonly dataDir: string;
  readonly logger?: Logger;
}

/** A byte range [start, end) of a file: one CSV record with its line end. */
type Range = readonly [number, number];

/** How a rewrite names the copy it writes beside a file (a leading dot: never listed as a kept file). */
const temporarySuffix = ".erasing";

/**
 * PRV-09, DEC-PRV-04 ("imported rows"): the file import keeps every file it received under
 * `files/{account}/{profile}/` in the data directory. Their rows became events, which the deletion removes;
 * this removes the rows themselves. `visitorIds` are the visitor ID values of the deleted group (its
 * members' and its profile's, see `visitorIdsOfGroup`; the deletion's own value is always among them): a
 * row imported under any of them was the group's, whichever attribute the deletion named. Each finished
 * import's file is read through its own definition and rewritten without the records whose visitor ID
 * (normalised, as the import reads it: DEC-PRV-05) is one of the values of that definition's attribute (a
 * group's other values are looked for only under their own attribute, where they name this visitor), and
 * without the records holding the deletion's own value in a text field (DEC-PRV-05: every attribute value
 * equal to the deleted value is erased): the visitor ID column, a column mapped as `string`, or a column
 * the definition does not map. Columns mapped as number, boolean or date become no text value, as in events.
 *
 * A file is replaced by a copy without the records (written beside it, synced, renamed over it), then the
 * records' bytes in the replaced file are overwritten with zeros, so neither the file nor its old blocks
 * keep them. At every moment the file's name holds either the whole original or the whole copy: a crash
 * before the rename leaves the original and a stray copy, which the next run removes before it erases again.
 * Running it again finds nothing more to remove.
 *
 * An import still running reads its file by position, so its file is left alone. The deletion worker finishes
 * this node's imports before it erases and waits for the others' (checkNoImportRunning, in core/privacy); one
 * that started in between is counted in `importsUnfinished`.
 * Files refused at the drop folder (`inbox/.../rejected/`) were never imported and stay the operator's.
 */
export async function eraseFromImportedFiles(
  deps: ImportedFilesEraserDeps,
  transaction: PrivacyTransaction,
  visitorIds: readonly VisitorLookup[] = [],
): Promise<ImportedFilesErasure> {
  const erased = { importedFiles: 0, importedRows: 0, importsUnfinished: 0 };
  const { account, profile } = transaction;
  if (transaction.value === null) return erased;
  const valuesByAttribute = new Map<number, Set<string>>();
  for (const { attributeId, value } of [
    { attributeId: transaction.attributeId, value: transaction.value },
    ...visitorIds,
  ]) {
    valuesByAttribute.set(
      attributeId,
      (valuesByAttribute.get(attributeId) ?? new Set()).add(normaliseVisitorIdValue(value)),
    );
  }
  const config = (await deps.stores.tenancy.findProfile(account, profile))?.config;
  const definitions = config?.fileDefinitions ?? [];
  if (definitions.length === 0) return erased;
  // A deletion recorded before DEC-PRV-05 may keep its value as it was sent.
  const deleted = normaliseVisitorIdValue(transaction.value);
  const prefixes = (config?.fileDefinitions ?? []).map((definition) => definition.prefix);

  const files = new ReceivedFiles(deps.dataDir);
  const folder = files.folderOf(account, profile);
  // Copies a crashed rewrite left: their file still holds its original, which is erased again below.
  for (const entry of entriesOf(folder))
    if (entry.isFile() && entry.name.startsWith(".") && entry.name.endsWith(temporarySuffix))
      await rm(join(folder, entry.name), { force: true });
  for (const name of files.namesIn(account, profile)) {
    const definition = definitions.find((candidate) => candidate.prefix === prefixOfFileName(name, prefixes));
    if (!definition) continue;
    const path = files.pathOf(account, profile, name);
    const ranges = await recordsOfVisitor(
      path,
      definition,
      valuesByAttribute.get(definition.visitorId.attribute) ?? new Set(),
      deleted,
    );
    if (ranges.length === 0) continue;
    const record = await deps.stores.files.find(account, profile, name);
    if (record && !record.finished) {
      erased.importsUnfinished += 1;
      deps.logger?.warn("a file holding a deleted visitor is still being imported; its copy is left as it is", {
        account,
        profile,
        file: name,
        transaction: transaction.id,
      });
      continue;
    }
    await rewriteWithout(path, ranges);
    erased.importedFiles += 1;
    erased.importedRows += ranges.length;
  }
  return erased;
}

/** The ImportedFileEraser port on the kept copies in a data directory: eraseFromImportedFiles. */
export function importedFilesEraser(deps: ImportedFilesEraserDeps): ImportedFileEraser {
  return { eraseVisitor: (transaction, visitorIds) => eraseFromImportedFiles(deps, transaction, visitorIds) };
}

/**
 * The byte ranges of the data records whose visitor ID column holds one of `values` (normalised), or whose
 * text fields (all but the columns mapped as number, boolean or date) hold `deleted` (DEC-PRV-05).
 */
async function recordsOfVisitor(
  path: string,
  definition: FileDefinition,
  values: ReadonlySet<string>,
  deleted: string,
): Promise<Range[]> {
  const ranges: Range[] = [];
  let visitorIndex: number | null = null;
  /** Per column of the header: whether its fields are text values (see above). */
  let textColumns: boolean[] = [];
  const typedColumns = new Set(
    definition.columns.filter((column) => column.type !== "string").map((column) => column.column.trim()),
  );
  try {
    // The import's own reading of a file, so the records found are those it made into events.
    for await (const { fields, start, end } of readCsvRecordBytes(path)) {
      if (visitorIndex === null) {
        const names = fields.map((column) => column.trim());
        visitorIndex = names.indexOf(definition.visitorId.column.trim());
        if (visitorIndex === -1) break;
        textColumns = names.map((name, index) => index === visitorIndex || !typedColumns.has(name));
      } else if (
        values.has(normaliseVisitorIdValue(fields[visitorIndex] ?? "")) ||
        (deleted !== "" && fields.some((field, index) => (textColumns[index] ?? true) && isErasedValue(field, deleted)))
      ) {
        ranges.push([start, end]);
      }
    }
  } catch {
    // A file the import could not read past a point: what was read before it is what became events.
  }
  return ranges;
}

/**
 * Replaces the file with a copy of everything outside the ranges (written beside it and synced, renamed over
 * it, the rename synced), then zeroes the ranges in the replaced file through the descriptor still open on
 * it. Renaming first means a crash never leaves the name on a file with zeroed records in it.
 */
async function rewriteWithout(path: string, ranges: readonly Range[]): Promise<void> {
  const folder = dirname(path);
  const temporary = join(folder, `.${randomBytes(6).toString("hex")}${temporarySuffix}`);
  const source = await open(path, "r+");
  try {
    try {
      await writeOutside(source, temporary, ranges);
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await syncDirectory(folder);
    for (const [from, to] of ranges) await source.write(Buffer.alloc(to - from), 0, to - from, from);
    await source.sync();
  } finally {
    await source.close().catch(() => undefined);
  }
}

/** Writes every byte of `source` outside the ranges to a new file at `path`, and syncs it. */
async function writeOutside(source: FileHandle, path: string, ranges: readonly Range[]): Promise<void> {
  const target = await open(path, "w");
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
  } finally {
    await target.close();
  }
}

/** Makes a rename in the folder durable. */
async function syncDirectory(folder: string): Promise<void> {
  const handle = await open(folder, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
