import type { FileDefinition } from "../../core/config/index.ts";
import { prefixOfFileName } from "../../core/files/index.ts";
import type {
  ByteRange,
  ByteSource,
  ImportedFileEraser,
  ImportedFilesErasure,
  Logger,
  PrivacyTransaction,
  ReceivedFileStorage,
  Stores,
} from "../../core/ports/index.ts";
import type { VisitorLookup } from "../../core/privacy/index.ts";
import { isErasedValue } from "../../core/privacy/index.ts";
import { normaliseVisitorIdValue } from "../../core/visitors/index.ts";
import { isUnreadableCsv, readCsvRecordBytes } from "./csv-rows.ts";

export interface ImportedFilesEraserDeps {
  readonly stores: Stores;
  /** The kept copies of the imported files (the data directory's, or the database's). */
  readonly files: ReceivedFileStorage;
  readonly logger?: Logger;
}

/**
 * PRV-09, DEC-PRV-04 ("imported rows"): the file import keeps every file it received (ReceivedFileStorage:
 * `files/{account}/{profile}/` in the data directory, or the PostgreSQL database). Their rows became events,
 * which the deletion removes; this removes the rows themselves. `visitorIds` are the visitor ID values of the
 * deleted group (its members' and its profile's, see `visitorIdsOfGroup`; the deletion's own value is always
 * among them): a row imported under any of them was the group's, whichever attribute the deletion named. Each
 * finished import's file is read through its own definition and rewritten without the records whose visitor
 * ID (normalised, as the import reads it: DEC-PRV-05) is one of the values of that definition's attribute (a
 * group's other values are looked for only under their own attribute, where they name this visitor), and
 * without the records holding the deletion's own value in a text field (DEC-PRV-05: every attribute value
 * equal to the deleted value is erased): the visitor ID column, a column mapped as `string`, or a column
 * the definition does not map. Columns mapped as number, boolean or date become no text value, as in events.
 *
 * The storage replaces a file at once (`rewriteWithout`): a crash leaves the whole original, which the
 * deletion, running again, erases again. Running it again finds nothing more to remove.
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

  const { files } = deps;
  for (const name of await files.namesIn(account, profile)) {
    const definition = definitions.find((candidate) => candidate.prefix === prefixOfFileName(name, prefixes));
    if (!definition) continue;
    const file = { account, profile, name };
    const ranges = await recordsOfVisitor(
      files.read(file),
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
    await files.rewriteWithout(file, ranges);
    erased.importedFiles += 1;
    erased.importedRows += ranges.length;
  }
  return erased;
}

/** The ImportedFileEraser port on the kept copies of the received files: eraseFromImportedFiles. */
export function importedFilesEraser(deps: ImportedFilesEraserDeps): ImportedFileEraser {
  return { eraseVisitor: (transaction, visitorIds) => eraseFromImportedFiles(deps, transaction, visitorIds) };
}

/**
 * The byte ranges of the data records whose visitor ID column holds one of `values` (normalised), or whose
 * text fields (all but the columns mapped as number, boolean or date) hold `deleted` (DEC-PRV-05).
 */
async function recordsOfVisitor(
  bytes: ByteSource,
  definition: FileDefinition,
  values: ReadonlySet<string>,
  deleted: string,
): Promise<ByteRange[]> {
  const ranges: ByteRange[] = [];
  let visitorIndex: number | null = null;
  /** Per column of the header: whether its fields are text values (see above). */
  let textColumns: boolean[] = [];
  const typedColumns = new Set(
    definition.columns.filter((column) => column.type !== "string").map((column) => column.column.trim()),
  );
  try {
    // The import's own reading of a file, so the records found are those it made into events.
    for await (const { fields, start, end } of readCsvRecordBytes(bytes)) {
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
  } catch (error) {
    // A file the import could not read past a point: what was read before it is what became events. A file
    // that could not be read at all (its storage failing) is no such point: the deletion tries again.
    if (!isUnreadableCsv(error)) throw error;
  }
  return ranges;
}
