import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { ServiceBusyError } from "../../core/errors/index.ts";
import type { SecretHasher } from "../../core/ports/index.ts";
import { createArgon2Hasher, rememberingVerified } from "./crypto.ts";

describe("argon2id hasher", () => {
  it("hashes as argon2id and verifies only the right secret; a malformed hash verifies nothing", async () => {
    const hasher = createArgon2Hasher();
    const hash = await hasher.hash("s3cret-password");
    expect(hash).toStartWith("$argon2id$");
    expect(await hasher.verify("s3cret-password", hash)).toBe(true);
    expect(await hasher.verify("other", hash)).toBe(false);
    expect(await hasher.verify("s3cret-password", "not-a-hash")).toBe(false);
  });

  it("refuses at once beyond its queue instead of holding every request", async () => {
    const hasher = createArgon2Hasher({ concurrency: 1, maxWaiting: 2, maxWaitingPerSource: 2 });
    const work = Array.from({ length: 6 }, () =>
      hasher.hash("x").then(
        () => "done",
        (error: unknown) => (error instanceof ServiceBusyError ? "busy" : "other"),
      ),
    );
    const outcomes = await Promise.all(work);
    expect(outcomes.filter((outcome) => outcome === "done")).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === "busy")).toHaveLength(3);
  });
});

/** A hasher whose hash of `s` is `h:<s>`, counting the checks it is asked for. */
function countingHasher(): SecretHasher & { checks: number } {
  const hasher = {
    checks: 0,
    hash: async (secret: string) => `h:${secret}`,
    async verify(secret: string, hash: string) {
      hasher.checks += 1;
      return hash === `h:${secret}`;
    },
  };
  return hasher;
}

describe("remembering successful checks (DEC-SES-05)", () => {
  it("checks the right secret once: the same user logging in again costs no second hash", async () => {
    const inner = countingHasher();
    const hasher = rememberingVerified(inner);
    expect([
      await hasher.verify("pw", "h:pw"),
      await hasher.verify("pw", "h:pw"),
      await hasher.verify("pw", "h:pw"),
    ]).toEqual([true, true, true]);
    expect(inner.checks).toBe(1);
  });

  it("checks every wrong secret in full, also after the right one succeeded", async () => {
    const inner = countingHasher();
    const hasher = rememberingVerified(inner);
    await hasher.verify("pw", "h:pw");
    expect([
      await hasher.verify("guess", "h:pw"),
      await hasher.verify("guess", "h:pw"),
      await hasher.verify("pw ", "h:pw"),
    ]).toEqual([false, false, false]);
    expect(inner.checks).toBe(4);
  });

  it("remembers a success only for the hash it matched: a new hash of the same secret (a new salt) is checked in full", async () => {
    const argon = createArgon2Hasher({ concurrency: 1, maxWaiting: 1, cost: { memoryCost: 8, timeCost: 1 } });
    const remembering = rememberingVerified(argon);
    const first = await argon.hash("pw");
    const second = await argon.hash("pw");
    expect([
      await remembering.verify("pw", first),
      await remembering.verify("pw", second),
      await remembering.verify("other", second),
    ]).toEqual([true, true, false]);
  });

  it("keeps the last `max` successes, the oldest going first", async () => {
    const inner = countingHasher();
    const hasher = rememberingVerified(inner, 2);
    for (const secret of ["a", "b", "c"]) await hasher.verify(secret, `h:${secret}`);
    inner.checks = 0;
    await hasher.verify("c", "h:c");
    await hasher.verify("b", "h:b");
    expect(inner.checks).toBe(0);
    await hasher.verify("a", "h:a");
    expect(inner.checks).toBe(1);
  });

  it("answers what the hasher it wraps answers, for any sequence of checks", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom("a", "b", "c", ""), fc.constantFrom("h:a", "h:b", "h:c", "h:", "junk")), {
          maxLength: 40,
        }),
        fc.integer({ min: 1, max: 4 }),
        async (checks, max) => {
          const inner = countingHasher();
          const hasher = rememberingVerified(inner, max);
          for (const [secret, hash] of checks) expect(await hasher.verify(secret, hash)).toBe(hash === `h:${secret}`);
        },
      ),
    );
  });
});
