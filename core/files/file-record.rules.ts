/**
 * The file status record as the API answers it (FIL-06, FIL-07, DEC-FIL-05): MongoDB extended JSON style,
 * `_id.$oid` and `$date` timestamps.
 */
import type { FileStatusRecord } from "../ports/files.store.ts";
import type { FileState } from "./file-import.machine.ts";

export interface DateView {
  readonly $date: string;
}

export interface StatusEntryView {
  readonly state: FileState;
  readonly timestamp: DateView;
  readonly lines_skipped?: number;
  readonly lines_failed_processing?: number;
  readonly lines_successfully_processed?: number;
  readonly last_failure?: string;
}

export interface FileStatusView {
  readonly _id: { readonly $oid: string };
  readonly account: string;
  readonly profile: string;
  readonly created_at: DateView;
  readonly node_id: string;
  readonly file: {
    readonly name: string;
    readonly size: number;
    readonly checksum: string;
    readonly source: { readonly type: string; readonly host: string };
    readonly line_count: number;
  };
  readonly status: readonly StatusEntryView[];
}

/** FIL-06: ISO 8601 with milliseconds, UTC (`2024-01-31T09:30:00.000Z`). */
export function dateView(ms: number): DateView {
  return { $date: new Date(ms).toISOString() };
}

/**
 * DEC-FIL-05: a 24-hex-digit id in the manner of a MongoDB ObjectId: the creation second (8 hex digits),
 * then 16 random hex digits given by the caller.
 */
export function objectIdOf(createdAtMs: number, randomHex16: string): string {
  const seconds = Math.max(0, Math.floor(createdAtMs / 1000)) % 0x1_0000_0000;
  return seconds.toString(16).padStart(8, "0") + randomHex16.toLowerCase().padEnd(16, "0").slice(0, 16);
}

/** FIL-06, FIL-07, DEC-FIL-03, DEC-FIL-05: the record as v1 and v2 answer it. */
export function fileStatusView(record: FileStatusRecord): FileStatusView {
  return {
    _id: { $oid: record.id },
    account: record.account,
    profile: record.profile,
    created_at: dateView(record.createdAt),
    node_id: record.nodeId,
    file: {
      name: record.name,
      size: record.file.size,
      checksum: record.file.checksum,
      source: { type: record.file.sourceType, host: record.file.sourceHost },
      line_count: record.file.lineCount,
    },
    status: record.status.map((entry) => ({
      state: entry.state,
      timestamp: dateView(entry.at),
      ...(entry.counts
        ? {
            lines_skipped: entry.counts.skipped,
            lines_failed_processing: entry.counts.failed,
            lines_successfully_processed: entry.counts.succeeded,
          }
        : {}),
      ...(entry.lastFailure === undefined ? {} : { last_failure: entry.lastFailure }),
    })),
  };
}
