import type { VisitorLookup } from "../privacy/privacy.rules.ts";
import type { PrivacyTransaction } from "./privacy.store.ts";

/** What erasing the kept copies of imported files removed, for the audit. */
export interface ImportedFilesErasure extends Record<string, number> {
  /** Files rewritten without the visitor's rows. */
  readonly importedFiles: number;
  readonly importedRows: number;
  /** Files holding the visitor's attribute whose import had not finished, left as they are. */
  readonly importsUnfinished: number;
}

/**
 * PRV-09, DEC-PRV-04 ("imported rows"): the file import keeps a copy of every file it received, whose rows
 * became events. A deletion removes the events through the stores and the rows through this, wherever the
 * host keeps the copies (svc-hub: CSV files in its data directory).
 */
export interface ImportedFileEraser {
  /**
   * Removes, from the kept copy of every finished import of the transaction's account/profile, the rows
   * imported under the deletion's own value or under one of `visitorIds` (the deleted group's visitor ID
   * values, each under its own attribute), and the rows holding the deletion's value in a text field
   * (DEC-PRV-05). Running it again removes nothing more.
   */
  eraseVisitor(transaction: PrivacyTransaction, visitorIds: readonly VisitorLookup[]): Promise<ImportedFilesErasure>;
}
