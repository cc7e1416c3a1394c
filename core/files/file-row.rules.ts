/**
 * From CSV rows to events (DEC-FIL-01, DEC-FIL-03, DEC-FIL-04): the header decides which column feeds
 * what; each data row becomes one event of the known visitor `__<account>_<profile>__<attrId>_<value>__`.
 */
import type { FileColumn, FileDefinition, ProfileConfig } from "../config/config.model.ts";
import { fileFailureMessage } from "../errors/index.ts";
import type { CollectedEvent } from "../ports/events.store.ts";
import { err, ok, type Result } from "../result.ts";
import { decimalNumberText as numberText } from "../values/value-text.rules.ts";
import { buildKnownVisitorId, isUsableVisitorId, normaliseVisitorIdValue } from "../visitors/visitor-id.rules.ts";
import { compileDatePattern, type DatePattern, parseDateWithPattern } from "./date-pattern.rules.ts";

/** The attributes every imported event carries (DEC-FIL-04). */
export const sourceFileParameter = "_source_file";
export const lineNumberParameter = "_file_line_num";

/** One mapped column: where it is in the rows, and how its text becomes a value. */
export interface PlannedColumn {
  readonly index: number;
  readonly column: FileColumn;
  readonly pattern: DatePattern | null;
}

/** What the header of a file says about its rows. */
export interface RowPlan {
  readonly width: number;
  readonly visitorIndex: number;
  readonly columns: readonly PlannedColumn[];
}

/**
 * FIL-09, DEC-FIL-03: the definition whose prefix the file has, or the unknown-prefix failure.
 * (The prefix was read from the name with the same definitions: file-name.rules.ts.)
 */
export function findDefinition(config: ProfileConfig | null, prefix: string): Result<FileDefinition, string> {
  const definition = config?.fileDefinitions.find((candidate) => candidate.prefix === prefix);
  return definition ? ok(definition) : err(fileFailureMessage("unknownPrefix"));
}

/**
 * DEC-FIL-03: reads the header row. The visitor ID column must be there (else "Secondary visitor ID
 * column= <name> does not exist..."), and so must every mapped column (else the column count message:
 * how many of the mapped columns, the visitor ID column included, were found, against how many are
 * mapped). A mapped column named twice fails with the same message, counting both: which of the two holds
 * the value cannot be told. Other columns are ignored, repeated or not. Header names are compared without
 * surrounding spaces.
 */
export function planRows(definition: FileDefinition, header: readonly string[]): Result<RowPlan, string> {
  const names = header.map((name) => name.trim());
  const indexOf = (column: string) => names.indexOf(column.trim());
  const visitorIndex = indexOf(definition.visitorId.column);
  if (visitorIndex === -1)
    return err(fileFailureMessage("visitorIdColumnMissing", { column_name: definition.visitorId.column }));
  const mapped = [definition.visitorId.column, ...definition.columns.map((column) => column.column)];
  const occurrences = mapped.map((column) => names.filter((name) => name === column.trim()).length);
  if (occurrences.some((count) => count > 1)) {
    const found = occurrences.reduce((sum, count) => sum + count, 0);
    return err(fileFailureMessage("columnCountMismatch", { columns: found, processors: mapped.length }));
  }
  const columns: PlannedColumn[] = [];
  for (const column of definition.columns) {
    const index = indexOf(column.column);
    if (index === -1) continue;
    let pattern: DatePattern | null = null;
    if (column.type === "date") {
      // The configuration loader refuses patterns it cannot compile; a stored one that does not is an error of the file's processing.
      const compiled = compileDatePattern(column.dateFormat ?? "");
      if (!compiled.ok) return err(fileFailureMessage("processingException"));
      pattern = compiled.value;
    }
    columns.push({ index, column, pattern });
  }
  if (columns.length !== definition.columns.length) {
    return err(
      fileFailureMessage("columnCountMismatch", {
        columns: columns.length + 1,
        processors: definition.columns.length + 1,
      }),
    );
  }
  return ok({ width: header.length, visitorIndex, columns });
}

const trueTexts = new Set(["true", "1", "y", "yes", "t"]);
const falseTexts = new Set(["false", "0", "n", "no", "f"]);

/** A value of a mapped column as its attribute type: numbers, booleans, strings, dates as epoch ms. */
export function parseColumnValue(planned: PlannedColumn, text: string): Result<number | string | boolean, string> {
  const trimmed = text.trim();
  switch (planned.column.type) {
    case "string":
      return ok(text);
    case "number": {
      const value = numberText.test(trimmed) ? Number(trimmed) : Number.NaN;
      return Number.isFinite(value) ? ok(value) : err(fileFailureMessage("processingException"));
    }
    case "boolean": {
      const lower = trimmed.toLowerCase();
      if (trueTexts.has(lower)) return ok(true);
      if (falseTexts.has(lower)) return ok(false);
      return err(fileFailureMessage("processingException"));
    }
    case "date": {
      const value = planned.pattern ? parseDateWithPattern(planned.pattern, trimmed) : null;
      return value === null
        ? err(fileFailureMessage("dateUnparsable", { date_format: planned.column.dateFormat ?? "" }))
        : ok(value);
    }
  }
}

/** Where an imported event comes from and when it is received. */
export interface RowContext {
  readonly account: string;
  readonly profile: string;
  readonly fileName: string;
  readonly definition: FileDefinition;
  /** The event parameter of the visitor ID attribute (for example `email_address`), so the value is captured as collection would. */
  readonly visitorIdParameter: string | null;
  readonly at: number;
}

export type RowOutcome =
  | { readonly kind: "skipped" }
  | { readonly kind: "failed"; readonly failure: string }
  | { readonly kind: "event"; readonly event: CollectedEvent };

/**
 * DEC-FIL-03, DEC-FIL-04, DEC-PRV-05: one data row. A blank line (nothing, or nothing but spaces and tabs), or a row
 * without a visitor ID value (empty or white space only once normalised, normaliseVisitorIdValue), is skipped; a row whose number of fields is not the header's, or with a value
 * that cannot be read as its type, fails; any other row becomes an event of the known visitor, with the mapped columns as parameters named after their
 * column (empty values left out), `_source_file` and `_file_line_num`.
 */
export function importRow(plan: RowPlan, context: RowContext, fields: readonly string[], line: number): RowOutcome {
  if (fields.length === 1 && /^[ \t]*$/.test(fields[0] as string)) return { kind: "skipped" };
  if (fields.length !== plan.width) {
    return {
      kind: "failed",
      failure: fileFailureMessage("columnCountMismatch", { columns: fields.length, processors: plan.width }),
    };
  }
  const visitorValue = normaliseVisitorIdValue(fields[plan.visitorIndex] as string);
  if (visitorValue === "") return { kind: "skipped" };
  // A value no one could name again (the privacy and moments APIs take what collection takes), or bytes that
  // were not UTF-8 (read as U+FFFD): the row fails rather than making a visitor of it.
  if (!isUsableVisitorId(visitorValue) || visitorValue.includes("\ufffd"))
    return { kind: "failed", failure: fileFailureMessage("processingException") };
  const data: Record<string, unknown> = {};
  const visitorId = buildKnownVisitorId(
    context.account,
    context.profile,
    context.definition.visitorId.attribute,
    visitorValue,
  );
  data.svc_visitor_id = visitorId;
  if (context.visitorIdParameter) data[context.visitorIdParameter] = visitorValue;
  for (const planned of plan.columns) {
    const text = fields[planned.index] as string;
    if (text.trim() === "") continue;
    const value = parseColumnValue(planned, text);
    if (!value.ok) return { kind: "failed", failure: value.error };
    data[planned.column.column] = value.value;
  }
  data[sourceFileParameter] = context.fileName;
  data[lineNumberParameter] = line;
  return {
    kind: "event",
    event: {
      account: context.account,
      profile: context.profile,
      visitorId,
      visitorIdSource: "visitor_id",
      thirdPartyVisitorId: null,
      firstPartyVisitorId: null,
      event: context.definition.event,
      datasource: null,
      traceId: null,
      receivedAt: context.at,
      data,
    },
  };
}

/** The UTF-8 length of a text, without an encoder (the core uses nothing outside it). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (
      code >= 0xd800 &&
      code <= 0xdbff &&
      index + 1 < text.length &&
      (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00
    ) {
      bytes += 4;
      index += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** DEC-FIL-03: "DBObject of size {n} is over Max BSON size {n}" when the document is larger than the limit. */
export function checkDocumentSize(size: number, maxBytes: number): Result<number, string> {
  return size > maxBytes ? err(fileFailureMessage("recordTooLarge", { size, max: maxBytes })) : ok(size);
}

/**
 * DEC-FIL-03 for one event: `checkDocumentSize` of its document (the UTF-8 bytes of its JSON), counting the
 * bytes only when they could be over the limit. A UTF-16 code unit is at most 3 bytes of UTF-8, so JSON of
 * at most a third of the limit in code units is within it: every row of an ordinary file, whose bytes are
 * then never counted (the check went from 0.8 to 0.3 µs a row, bench/FINDINGS.md).
 */
export function checkEventDocument(event: CollectedEvent, maxBytes: number): Result<void, string> {
  const text = JSON.stringify(event);
  if (text.length * 3 <= maxBytes) return ok(undefined);
  const checked = checkDocumentSize(utf8Length(text), maxBytes);
  return checked.ok ? ok(undefined) : checked;
}
