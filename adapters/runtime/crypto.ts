import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Digests, IdSource, SecretHasher } from "../../core/ports/index.ts";
import { type Argon2Cost, HashingThreads } from "../threads/hashing-host.ts";
import { FairQueue, type FairQueueLimits } from "./fair-queue.ts";

/** Randomness from the platform's cryptographically strong generator. */
export const cryptoIds: IdSource = {
  randomHex(bytes) {
    return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
  },
  randomToken(bytes) {
    return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
  },
  randomUnit() {
    const [word = 0] = crypto.getRandomValues(new Uint32Array(1));
    return word / 2 ** 32;
  },
};

export const nodeDigests: Digests = {
  async sha256Hex(data) {
    return createHash("sha256").update(data).digest("hex");
  },
};

/** The source of the hashing work no client asked for (SecretHasher: `source` absent). */
const ownWork = "\u0000service";

export interface Argon2HasherOptions extends Partial<FairQueueLimits> {
  /** argon2id's cost (Bun's defaults: 64 MiB, 2 passes); cheaper only in tests. */
  readonly cost?: Argon2Cost;
}

/** A hasher on threads of its own, which `close` ends. */
export interface Argon2Hasher extends SecretHasher {
  close(): Promise<void>;
}

/**
 * DEC-SES-05: argon2id through Bun's built-in implementation. At most `concurrency` (2) hashes run at once and
 * at most `maxWaiting` (64) more queue, so a burst of logins cannot take every core and all the memory
 * (argon2 uses 64 MiB each); past that a check is refused with ServiceBusyError (503). The queue is shared
 * fairly by source (a login's client address, FairQueue): one address waits with at most
 * `maxWaitingPerSource` (32, half the queue: a test suite's parallel first logins from one machine still fit)
 * checks, and a freed slot goes to the addresses in turn, so a flood of wrong logins from one address fills
 * its own line only, and another address's first login waits behind at most one check per address waiting.
 * The hashes run on threads of their own (HashingThreads), never on the runtime's shared worker threads, where
 * they held up the JWTs' signatures and file reads.
 */
export function createArgon2Hasher(options: Argon2HasherOptions = {}): Argon2Hasher {
  const queue = new FairQueue({
    concurrency: options.concurrency ?? 2,
    maxWaiting: options.maxWaiting ?? 64,
    maxWaitingPerSource: options.maxWaitingPerSource ?? 32,
  });
  const cost = options.cost ?? {};
  const threads = new HashingThreads();
  return {
    hash: (secret, source = ownWork) => queue.run(source, () => threads.hash(secret, cost)),
    verify: (secret, hash, source = ownWork) => queue.run(source, () => threads.verify(secret, hash)),
    close: () => threads.close(),
  };
}

/**
 * DEC-SES-05: `hasher`, remembering the checks that succeeded, so that the same user logging in again with
 * the same password (a test suite logs in before every case) costs an HMAC, not another argon2id run (about
 * 100 ms of a core and 64 MiB). Only successes are kept, by the stored hash they matched, as an HMAC of the
 * secret under a key made here that never leaves the process: a wrong secret is always checked by argon2id,
 * so guessing costs what it did; a changed password has a new hash (a new salt), so what was remembered of
 * the old one never matches it. The last `max` successes are kept (the oldest goes first).
 */
export function rememberingVerified(hasher: SecretHasher, max = 1024): SecretHasher {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const verified = new Map<string, Buffer>();
  const macOf = (secret: string) => createHmac("sha256", key).update(secret, "utf8").digest();
  return {
    hash: (secret, source) => hasher.hash(secret, source),
    async verify(secret, hash, source) {
      const known = verified.get(hash);
      if (known !== undefined && timingSafeEqual(known, macOf(secret))) return true;
      if (!(await hasher.verify(secret, hash, source))) return false;
      verified.delete(hash);
      verified.set(hash, macOf(secret));
      if (verified.size > max) verified.delete(verified.keys().next().value as string);
      return true;
    },
  };
}
