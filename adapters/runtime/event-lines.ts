import { type CollectJournalEntry, viewOfJournalEntry } from "../../core/collect/index.ts";

/**
 * SVC_PRINT_EVENTS: one outcome of the collection endpoint as one line of JSON, `{"type":"event", ...entry}`
 * (`at` in ISO 8601 beside `atMs`). Written through the log's writer, a whole line at a time, so that it never
 * lands in the middle of a log line; the `type` tells the two apart (log lines have `level` and `msg`).
 */
export function eventLineOf(entry: CollectJournalEntry): string {
  return `${JSON.stringify({ type: "event", ...viewOfJournalEntry(entry) })}\n`;
}
