/**
 * What the console shows of a profile (issue 32): its data layers, revisions, file imports and privacy
 * transactions, as JSON of plain fields. Every time is an ISO 8601 string beside its epoch milliseconds
 * (`…At` and `…AtMs`); every text is as stored, for the console to show as text.
 */
import type { FileState, RowCounts } from "../files/file-import.machine.ts";
import { type FileStatusView, fileStatusView } from "../files/file-record.rules.ts";
import type { DataLayerChangeKind, DataLayerChangeState, ListedDataLayer } from "../ports/datalayer.store.ts";
import type { FileStatusRecord } from "../ports/files.store.ts";
import type {
  ListedPrivacyTransaction,
  PrivacyTransactionKind,
  PrivacyTransactionState,
} from "../ports/privacy.store.ts";
import type { StoredRevision } from "../ports/revisions.store.ts";
import { bundleFileName, manifestFileName } from "../revisions/bundle-members.rules.ts";
import type { RevisionDetails } from "../revisions/revision.rules.ts";

/** How many records a list answers when the caller does not say. */
export const defaultOverviewLimit = 200;
/** The most records a list answers. */
export const maxOverviewLimit = 1000;
/** The most of a served data layer the list shows: 16 KiB of its text (DataLayerStore.list reads no more). */
export const servedPreviewBytes = 16 * 1024;

/** ISO 8601 with milliseconds, UTC. */
function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** UTF-8 bytes of one code point (a lone surrogate is written as U+FFFD: three). */
function utf8Size(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/** The longest start of `text` made of whole characters whose UTF-8 encoding fits in `maxBytes`. */
export function previewOf(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const character of text) {
    bytes += utf8Size(character.codePointAt(0) ?? 0);
    if (bytes > maxBytes) break;
    end += character.length;
  }
  return text.slice(0, end);
}

/** The newest accepted change of a data layer (DLE-07, DEC-DLE-05). */
export interface DataLayerChangeOverview {
  readonly seq: number;
  readonly kind: DataLayerChangeKind;
  readonly state: DataLayerChangeState;
  readonly acceptedAt: string;
  readonly acceptedAtMs: number;
  /** DEC-DLE-06: when it is published. */
  readonly dueAt: string;
  readonly dueAtMs: number;
  readonly settledAt: string | null;
  readonly settledAtMs: number | null;
  /** Failed tries so far. */
  readonly attempts: number;
  /** A pending change's next try (its due time, later after a failed try); null once settled. */
  readonly nextTryAt: string | null;
  readonly nextTryAtMs: number | null;
}

/** DEC-DLE-07: what is served, and the start of it. */
export interface ServedOverview {
  readonly seq: number;
  readonly publishedAt: string;
  readonly publishedAtMs: number;
  /** The size of the whole body, in UTF-8 bytes. */
  readonly bytes: number;
  /** The body's first `servedPreviewBytes` bytes of text, cut between characters. */
  readonly preview: string;
  /** Whether the body is longer than its preview. */
  readonly truncated: boolean;
}

export interface DataLayerOverview {
  readonly dlId: string;
  /** DEC-DLE-05: the newest accepted change is an upload or an update. */
  readonly exists: boolean;
  readonly newest: DataLayerChangeOverview;
  readonly served: ServedOverview | null;
}

/** DLE-*, DEC-DLE-05..07: a data layer with its newest change and the preview of what it serves. */
export function dataLayerOverview({ layer, newest, served }: ListedDataLayer): DataLayerOverview {
  const pending = newest.state === "pending";
  return {
    dlId: layer.key.dlId,
    exists: layer.exists,
    newest: {
      seq: newest.seq,
      kind: newest.kind,
      state: newest.state,
      acceptedAt: isoTime(newest.acceptedAt),
      acceptedAtMs: newest.acceptedAt,
      dueAt: isoTime(newest.dueAt),
      dueAtMs: newest.dueAt,
      settledAt: newest.settledAt === null ? null : isoTime(newest.settledAt),
      settledAtMs: newest.settledAt,
      attempts: newest.attempts,
      nextTryAt: pending ? isoTime(newest.runAt) : null,
      nextTryAtMs: pending ? newest.runAt : null,
    },
    served: served
      ? {
          seq: served.seq,
          publishedAt: isoTime(served.publishedAt),
          publishedAtMs: served.publishedAt,
          bytes: served.bytes,
          preview: previewOf(served.head, servedPreviewBytes),
          truncated: served.bytes > servedPreviewBytes,
        }
      : null,
  };
}

/** REV-03: the revision's details, with its id, publication time and the names of its bundle's files. */
export type RevisionOverview = RevisionDetails & {
  readonly revisionId: string;
  readonly createdAt: string;
  readonly createdAtMs: number;
  /** The members of the bundle (the zip), in its order: the published files, then manifest.json. */
  readonly files: readonly string[];
};

/**
 * REV-05, DEC-REV-02: the bundle's members, read from the details, whose every target lists each published
 * file (beside the checksums of manifest.json and of the bundle itself), so that no zip is opened.
 */
export function bundleMembersOf(details: RevisionDetails): string[] {
  const [anyTarget] = Object.values(details.checksums);
  const published = Object.keys(anyTarget ?? {}).filter((name) => name !== manifestFileName && name !== bundleFileName);
  return [...published, manifestFileName];
}

export function revisionOverview(revision: StoredRevision): RevisionOverview {
  return {
    revisionId: revision.revisionId,
    ...revision.details,
    createdAt: isoTime(revision.createdAt),
    createdAtMs: revision.createdAt,
    files: bundleMembersOf(revision.details),
  };
}

/** FIL-06, FIL-07: the file status record as v2 answers it, and what the console shows first. */
export type FileOverview = FileStatusView & {
  /** The file name, `.csv` included (as file.name). */
  readonly name: string;
  /** The state of the newest status entry. */
  readonly state: FileState;
  /** When the import entered that state. */
  readonly stateAt: string;
  readonly stateAtMs: number;
  /** Nothing more will happen to the import: PROCESSED, or stopped on a failure. */
  readonly finished: boolean;
  /** It stopped on a file-level failure (failureMessage says which) before PROCESSED. */
  readonly failed: boolean;
  readonly createdAt: string;
  readonly createdAtMs: number;
  /** Data rows read so far; null before any is. */
  readonly rowsRead: number | null;
  /** DEC-FIL-03: the row counters, final once finished, so far while processing; null before any row. */
  readonly counts: RowCounts | null;
  /** FIL-09: the file's failure, or the last row's failure; null when there is none. */
  readonly failureMessage: string | null;
};

export function fileOverview(record: FileStatusRecord): FileOverview {
  const last = record.status.at(-1);
  const state = last?.state ?? "DOWNLOADING";
  const stateAt = last?.at ?? record.createdAt;
  const counts = last?.counts ?? record.progress?.counts ?? null;
  return {
    ...fileStatusView(record),
    name: record.name,
    state,
    stateAt: isoTime(stateAt),
    stateAtMs: stateAt,
    finished: record.finished,
    failed: record.finished && state !== "PROCESSED",
    createdAt: isoTime(record.createdAt),
    createdAtMs: record.createdAt,
    rowsRead: record.progress?.rowsRead ?? null,
    counts: counts ? { skipped: counts.skipped, failed: counts.failed, succeeded: counts.succeeded } : null,
    failureMessage: last?.lastFailure ?? record.progress?.lastRowFailure ?? null,
  };
}

/** PRV-05..07, DEC-PRV-03: a transaction of the visitor privacy API. */
export interface PrivacyTransactionOverview {
  readonly transactionId: string;
  readonly kind: PrivacyTransactionKind;
  readonly state: PrivacyTransactionState;
  /** The visitor ID attribute the request named. */
  readonly attributeId: number;
  /** Its name in the profile's configuration; null when the profile no longer defines it. */
  readonly attributeName: string | null;
  /** DEC-PRV-04: the value, kept only while a deletion is PENDING; null otherwise. */
  readonly value: string | null;
  /** DEC-PRV-04: the keyed hash of the value, which stays (the same value gives the same hash). */
  readonly valueHash: string;
  /** The user whose token made the request. */
  readonly requestedBy: string;
  readonly createdAt: string;
  readonly createdAtMs: number;
  readonly settledAt: string | null;
  readonly settledAtMs: number | null;
  /** A pending deletion's next try; null otherwise. */
  readonly nextTryAt: string | null;
  readonly nextTryAtMs: number | null;
  /** Failed tries so far. */
  readonly attempts: number;
  /** What a deletion that succeeded removed (visitor ids, events, profiles, and the rewritten ones); null otherwise. */
  readonly counts: Readonly<Record<string, number>> | null;
}

export function privacyTransactionOverview(
  { transaction, settlement }: ListedPrivacyTransaction,
  attributeNames: ReadonlyMap<number, string>,
): PrivacyTransactionOverview {
  const pending = transaction.state === "PENDING";
  return {
    transactionId: transaction.id,
    kind: transaction.kind,
    state: transaction.state,
    attributeId: transaction.attributeId,
    attributeName: attributeNames.get(transaction.attributeId) ?? null,
    value: transaction.value,
    valueHash: transaction.valueHash,
    requestedBy: transaction.requestedBy,
    createdAt: isoTime(transaction.createdAt),
    createdAtMs: transaction.createdAt,
    settledAt: transaction.settledAt === null ? null : isoTime(transaction.settledAt),
    settledAtMs: transaction.settledAt,
    nextTryAt: pending && transaction.runAt !== null ? isoTime(transaction.runAt) : null,
    nextTryAtMs: pending ? transaction.runAt : null,
    attempts: transaction.attempts,
    counts: transaction.kind === "delete" && transaction.state === "SUCCESS" ? (settlement ?? null) : null,
  };
}
