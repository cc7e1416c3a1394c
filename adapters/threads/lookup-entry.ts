/**
 * The entry of the lookup thread (adapters/threads/lookup-host.ts): a read-only statement reader on the
 * database file, answering each batch of reads with one message.
 */
import { parentPort, workerData } from "node:worker_threads";
import { profileThisThread, profileWindowOf } from "../runtime/thread-profile.ts";
import { StatementReader } from "../store-libsql/statement-reader.ts";
import { threadErrorOf } from "./background-host.ts";
import type { LookupBatch, LookupReply, LookupThreadInit } from "./lookup-host.ts";

const port = parentPort;
if (!port) throw new Error("adapters/threads/lookup-entry.ts runs as a worker thread only");
const init = workerData as LookupThreadInit;
profileThisThread("lookup", profileWindowOf(process.env));

try {
  const reader = new StatementReader(init.path, init.busyTimeoutMs);
  /** The queries by the number the HTTP thread sent each under, with the count of their values. */
  const queries: Array<{ readonly sql: string; readonly arity: number }> = [];
  port.on("message", (batch: LookupBatch) => {
    for (let index = 0; index < batch.queries.length; index += 3) {
      queries[batch.queries[index] as number] = {
        sql: batch.queries[index + 1] as string,
        arity: batch.queries[index + 2] as number,
      };
    }
    const rows: Array<unknown[] | null> = [];
    const errors: unknown[] = [];
    for (let at = 0; at < batch.reads.length; ) {
      const query = queries[batch.reads[at] as number];
      if (!query) {
        // Cannot happen (messages arrive in order, a query's text with its first read), and the reads after
        // this one cannot be told apart: this one fails, and the HTTP side fails those it has no answer for.
        errors.push(rows.length, threadErrorOf(new Error("a read named a query the lookup thread was never sent")));
        rows.push(null);
        break;
      }
      const values = batch.reads.slice(at + 1, at + 1 + query.arity);
      at += 1 + query.arity;
      try {
        rows.push(reader.rowOf(query.sql, values) ?? null);
      } catch (error) {
        errors.push(rows.length, threadErrorOf(error));
        rows.push(null);
      }
    }
    port.postMessage({ kind: "reply", id: batch.id, rows, errors } satisfies LookupReply);
  });
  port.postMessage({ kind: "ready" });
} catch (error) {
  port.postMessage({ kind: "failed", error: threadErrorOf(error) });
}
