/**
 * What the tests of the file import share: in the core with the files in memory
 * (core/files/file-import.use-cases.test.ts), in the adapters with the data directory's files on disk
 * (adapters/fs/file-import.fs.test.ts). The definitions are the demo's (demo.md).
 */
import assert from "node:assert/strict";
import type { FileDefinition } from "../../core/config/index.ts";
import type { FileImportService } from "../../core/files/index.ts";
import type { CollectedEvent, FileStatusRecord, Stores } from "../../core/ports/index.ts";
import { emailIdAttribute, profileWith } from "../fixtures.ts";

export const purchases: FileDefinition = {
  prefix: "purchases",
  event: "purchase",
  visitorId: { column: "email", attribute: 5120 },
  columns: [
    { column: "amount", attribute: 5207, type: "number" },
    { column: "purchased_at", attribute: 5204, type: "date", dateFormat: "yyyy-MM-dd HH:mm" },
  ],
};

export const notes: FileDefinition = {
  prefix: "notes",
  event: "imported",
  visitorId: { column: "email", attribute: 5120 },
  columns: [{ column: "note", attribute: 5202, type: "string" }],
};

/** acme/main, its visitors known by e-mail address, importing purchases and notes. */
export const importingProfile = profileWith({
  visitorIdAttributes: [emailIdAttribute],
  fileDefinitions: [purchases, notes],
});

/** The header of a purchases file. */
export const header = "email,amount,purchased_at\n";

/** The bytes of `parts`, a chunk each, as an upload's body comes. */
export async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

/** Receives the text as an upload to acme/main and processes everything waiting; answers the record. */
export async function importText(
  stores: Stores,
  imports: FileImportService,
  name: string,
  text: string,
): Promise<FileStatusRecord> {
  const received = await imports.receive("acme", "main", name, "upload", chunks(text));
  assert.equal(received.ok, true);
  while ((await imports.processNext()) > 0);
  return (await stores.files.find("acme", "main", name)) as FileStatusRecord;
}

/**
 * Makes the store's appends fail with `message` at the `failing`th call (every call from it on when
 * `thereafter`), as a process that stops mid-import sees them; answers how to restore them.
 */
export function failAppends(stores: Stores, failing: number, message: string, thereafter = false): () => void {
  const append = stores.events.append.bind(stores.events);
  let calls = 0;
  stores.events.append = async (events, options) => {
    calls += 1;
    if (calls === failing || (thereafter && calls > failing)) throw new Error(message);
    return append(events, options);
  };
  return () => {
    stores.events.append = append;
  };
}

/** Every event stored, in order. */
export function allEvents(stores: Stores): Promise<CollectedEvent[]> {
  return stores.events.query({ limit: 1_000_000 });
}

/** The states an import went through. */
export function states(record: FileStatusRecord): string[] {
  return record.status.map((entry) => entry.state);
}
