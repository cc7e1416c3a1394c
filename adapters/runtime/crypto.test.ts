import { describe, expect, it } from "bun:test";
import { createArgon2Hasher, ServiceBusyError } from "./crypto.ts";

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
    const hasher = createArgon2Hasher(1, 2);
    const work = Array.from({ length: 6 }, () => hasher.hash("x").then(() => "done", (error: unknown) => (error instanceof ServiceBusyError ? "busy" : "other")));
    const outcomes = await Promise.all(work);
    expect(outcomes.filter((outcome) => outcome === "done")).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === "busy")).toHaveLength(3);
  });
});
