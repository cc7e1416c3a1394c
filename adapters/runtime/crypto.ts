import { createHash } from "node:crypto";
import type { Digests, SecretHasher } from "../../core/ports/hashing.port.ts";
import type { IdSource } from "../../core/ports/ids.port.ts";

/** Randomness from the platform's cryptographically strong generator. */
export const cryptoIds: IdSource = {
  randomHex(bytes) {
    return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
  },
  randomToken(bytes) {
    return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
  },
  randomUnit() {
    return crypto.getRandomValues(new Uint32Array(1))[0]! / 2 ** 32;
  },
};

export const nodeDigests: Digests = {
  async sha256Hex(data) {
    return createHash("sha256").update(data).digest("hex");
  },
};

/**
 * DEC-SES-05: argon2id through Bun's built-in implementation. At most `concurrency` hashes run at once and
 * the rest queue, so a burst of logins cannot take every core and all the memory (argon2 uses 64 MiB each).
 */
export function createArgon2Hasher(concurrency = 2): SecretHasher {
  let active = 0;
  const waiting: Array<() => void> = [];
  async function bounded<T>(work: () => Promise<T>): Promise<T> {
    if (active >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await work();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  }
  return {
    hash: (secret) => bounded(() => Bun.password.hash(secret, { algorithm: "argon2id" })),
    verify: (secret, hash) => bounded(async () => {
      try {
        return await Bun.password.verify(secret, hash);
      } catch {
        return false; // a malformed stored hash verifies nothing
      }
    }),
  };
}
