/**
 * The states of a file import (FIL-07, FIL-08, DEC-FIL-03): DOWNLOADING → DOWNLOADED → PROCESSING →
 * PROCESSED. There is no FAILED state: a file-level failure puts `last_failure` on the entry of the state
 * where it happened and the file advances no further. Row-level failures are counted; the PROCESSED entry
 * carries the counters and, when a row failed, the last row failure. At most one entry, the last, carries
 * `last_failure`.
 */
import type { TransitionResult } from "../machine.ts";
import { err, ok } from "../result.ts";

export type FileState = "DOWNLOADING" | "DOWNLOADED" | "PROCESSING" | "PROCESSED";

/** FIL-08: the order a completed file lists its states in. */
export const fileStates: readonly FileState[] = ["DOWNLOADING", "DOWNLOADED", "PROCESSING", "PROCESSED"];

/** The row counters of DEC-FIL-03. */
export interface RowCounts {
  readonly skipped: number;
  readonly failed: number;
  readonly succeeded: number;
}

export const noRows: RowCounts = { skipped: 0, failed: 0, succeeded: 0 };

/** One entry of the status history (FIL-07). Times are virtual-clock epoch milliseconds. */
export interface StatusEntry {
  readonly state: FileState;
  readonly at: number;
  /** Present on PROCESSED, and on a PROCESSING entry that failed once rows were read. */
  readonly counts?: RowCounts;
  /** A message of the failure catalogue (FIL-09), numbers filled in. */
  readonly lastFailure?: string;
}

/** An import as the machine sees it: its history, and whether it has stopped (finished or failed). */
export interface FileImportState {
  readonly status: readonly StatusEntry[];
  readonly finished: boolean;
}

export type FileImportEvent =
  | { readonly type: "downloaded"; readonly at: number }
  | { readonly type: "processing-started"; readonly at: number }
  | {
      readonly type: "processed";
      readonly at: number;
      readonly counts: RowCounts;
      readonly lastRowFailure: string | null;
    }
  /** A file-level failure: download failure, unknown prefix, header problems, too large a record. */
  | { readonly type: "failed"; readonly at: number; readonly failure: string; readonly counts?: RowCounts };

/** What the caller must do next, as data. */
export type FileImportEffect =
  | { readonly type: "queue-processing" }
  | { readonly type: "read-rows" }
  | { readonly type: "import-finished"; readonly outcome: "processed" | "failed" };

/** DEC-FIL-03: a file whose import was just accepted is DOWNLOADING. */
export function startImport(at: number): FileImportState {
  return { status: [{ state: "DOWNLOADING", at }], finished: false };
}

/**
 * Whether the name of this import may be received again, though DEC-FIL-04 imports a name once: only when
 * the import stopped on a failure with no row made into an event (a download that broke off, a header that
 * did not match the definition, every row refused). The catalogue's resolution for those failures is to
 * re-upload, and nothing of the first attempt would be imported twice.
 */
export function mayBeReceivedAgain(state: FileImportState): boolean {
  const last = state.status.at(-1);
  return state.finished && last?.lastFailure !== undefined && (last.counts?.succeeded ?? 0) === 0;
}

/** The state the import is in: that of its newest entry. */
export function currentState(state: FileImportState): FileState {
  return (state.status.at(-1) as StatusEntry).state;
}

const moves: Readonly<Record<"downloaded" | "processing-started" | "processed", { from: FileState; to: FileState }>> = {
  downloaded: { from: "DOWNLOADING", to: "DOWNLOADED" },
  "processing-started": { from: "DOWNLOADED", to: "PROCESSING" },
  processed: { from: "PROCESSING", to: "PROCESSED" },
};

/**
 * FIL-07, FIL-08, DEC-FIL-03: the next state of an import. A move out of order, or any move once the
 * import has finished, is refused (a programming error of the caller, never a user's).
 */
export function transitionFileImport(
  state: FileImportState,
  event: FileImportEvent,
): TransitionResult<FileImportState, FileImportEffect, string> {
  const current = currentState(state);
  if (state.finished) return err(`the import has finished (${current}); ${event.type} cannot follow`);
  if (event.type === "failed") {
    const entries = state.status.slice(0, -1);
    const last = state.status.at(-1) as StatusEntry;
    const failedEntry: StatusEntry = {
      ...last,
      ...(event.counts ? { counts: event.counts } : {}),
      lastFailure: event.failure,
    };
    return ok({
      next: { status: [...entries, failedEntry], finished: true },
      effects: [{ type: "import-finished", outcome: "failed" }],
    });
  }
  const move = moves[event.type];
  if (current !== move.from) return err(`${event.type} needs ${move.from}, the import is ${current}`);
  if (event.type === "processed") {
    const entry: StatusEntry = {
      state: "PROCESSED",
      at: event.at,
      counts: event.counts,
      ...(event.lastRowFailure === null ? {} : { lastFailure: event.lastRowFailure }),
    };
    return ok({
      next: { status: [...state.status, entry], finished: true },
      effects: [{ type: "import-finished", outcome: "processed" }],
    });
  }
  const next: FileImportState = { status: [...state.status, { state: move.to, at: event.at }], finished: false };
  return ok({ next, effects: [{ type: event.type === "downloaded" ? "queue-processing" : "read-rows" }] });
}
