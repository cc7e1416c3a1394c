import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { HashingThreads } from "./hashing-host.ts";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function threads(): HashingThreads {
  const hashing = new HashingThreads();
  cleanups.push(() => hashing.close());
  return hashing;
}

describe("hashing threads (second probe, finding 2)", () => {
  it("hash as argon2id and verify only the right secret; a malformed hash verifies nothing", async () => {
    const hashing = threads();
    const hash = await hashing.hash("s3cret", { memoryCost: 8, timeCost: 1 });
    expect(hash).toStartWith("$argon2id$");
    expect(await hashing.verify("s3cret", hash)).toBe(true);
    expect(await hashing.verify("other", hash)).toBe(false);
    expect(await hashing.verify("s3cret", "not-a-hash")).toBe(false);
  });

  it("while as many hashes run as the machine has cores, a JWT's HMAC (WebCrypto) and a file read are answered before any of them", async () => {
    // Bun.password's asynchronous hashes ran on the runtime's shared worker threads, one a core, where WebCrypto
    // and node:fs/promises wait for a free one: a login flood's checks held every token request behind them.
    const hashing = threads();
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-hashing-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "read-me.txt");
    writeFileSync(file, "hello");
    const key = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode("a-signing-key"),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );

    const finished: string[] = [];
    const hashes = Array.from({ length: availableParallelism() }, (_, index) =>
      hashing.hash(`secret-${index}`, { memoryCost: 16 * 1024, timeCost: 12 }).then(() => finished.push("hash")),
    );
    // Let the threads start on their hashes first.
    await Bun.sleep(20);
    await Promise.all([
      crypto.subtle.sign("HMAC", key, new TextEncoder().encode("header.payload")).then(() => finished.push("hmac")),
      readFile(file).then(() => finished.push("read")),
    ]);
    await Promise.all(hashes);
    expect(finished.slice(0, 2).sort()).toEqual(["hmac", "read"]);
  }, 60_000);

  it("start a thread only when none is idle, and end them at close: the work they held fails, and later work too", async () => {
    const hashing = threads();
    const cost = { memoryCost: 8, timeCost: 1 };
    await hashing.hash("one", cost);
    await hashing.hash("two", cost);
    expect(hashing.threads).toBe(1);
    await Promise.all([hashing.hash("three", cost), hashing.hash("four", cost)]);
    expect(hashing.threads).toBe(2);
    const running = hashing.hash("x", { memoryCost: 16 * 1024, timeCost: 50 }).then(
      () => "hashed",
      (error: Error) => error.message,
    );
    await hashing.close();
    expect(await running).toBe("the hashing threads were closed");
    expect(hashing.threads).toBe(0);
    await expect(hashing.hash("y", cost)).rejects.toThrow("the hashing threads were closed");
  });
});
