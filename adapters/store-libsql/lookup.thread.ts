/**
 * The entry of the lookup thread (adapters/store-libsql/lookup-thread.ts): a read-only statement reader on the
 * database file, answering each batch of reads with one message.
 */
import { parentPort, workerData } from "node:worker_threads";
import { threadErrorOf } from "../runtime/background-thread.ts";
import type { LookupBatch, LookupReply, LookupResult, LookupThreadInit } from "./lookup-thread.ts";
import { StatementReader } from "./statement-reader.ts";

const port = parentPort;
if (!port) throw new Error("adapters/store-libsql/lookup.thread.ts runs as a worker thread only");
const init = workerData as LookupThreadInit;

try {
  const reader = new StatementReader(init.path, init.busyTimeoutMs);
  port.on("message", (batch: LookupBatch) => {
    const results = batch.reads.map((read): LookupResult => {
      try {
        return { ok: true, row: reader.row(read.query, read.values) ?? null };
      } catch (error) {
        return { ok: false, error: threadErrorOf(error) };
      }
    });
    port.postMessage({ kind: "reply", id: batch.id, results } satisfies LookupReply);
  });
  port.postMessage({ kind: "ready" });
} catch (error) {
  port.postMessage({ kind: "failed", error: threadErrorOf(error) });
}
