/**
 * The entry of a hashing thread (adapters/threads/hashing-host.ts): argon2id, synchronously on this thread, one
 * piece of work at a time.
 */
import { parentPort } from "node:worker_threads";
import { threadErrorOf } from "./background-host.ts";
import type { HashingReply, HashingWork } from "./hashing-host.ts";

const port = parentPort;
if (!port) throw new Error("adapters/threads/hashing-entry.ts runs as a worker thread only");

function verified(secret: string, hash: string): boolean {
  try {
    return Bun.password.verifySync(secret, hash);
  } catch {
    return false; // a malformed stored hash verifies nothing
  }
}

port.on("message", (work: HashingWork) => {
  let reply: HashingReply;
  try {
    const value =
      work.kind === "hash"
        ? Bun.password.hashSync(work.secret, { algorithm: "argon2id", ...work.cost })
        : verified(work.secret, work.hash);
    reply = { id: work.id, ok: true, value };
  } catch (error) {
    reply = { id: work.id, ok: false, error: threadErrorOf(error) };
  }
  port.postMessage(reply);
});
