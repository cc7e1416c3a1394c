/** `npm run hash-secret` (docs/configuration.md, "Secrets"): the hash of a secret read from standard input. */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { runCommand } from "../../tools/run-command.ts";

const root = join(import.meta.dir, "..", "..");

function hashSecret(input: string, ...args: string[]) {
  return runCommand([process.execPath, join(root, "adapters/cli/hash-secret.ts"), ...args], { stdin: input });
}

describe("hash-secret", () => {
  it("prints an argon2id hash of a password of 8 characters or more, one trailing newline read off", async () => {
    const { code, stdout } = await hashSecret("password-8\n");
    expect(code).toBe(0);
    expect(stdout).toStartWith("$argon2id$");
    expect(await Bun.password.verify("password-8", stdout.trim())).toBe(true);
  });

  it("refuses a shorter password as the admin API does (exit 2), unless it is an API key (--key); refuses nothing at all", async () => {
    const short = await hashSecret("short");
    expect([short.code, short.stdout, short.stderr.trim()]).toEqual([
      2,
      "",
      "hash-secret: a password must be at least 8 characters (this one has 5); for an API key, add --key",
    ]);
    const key = await hashSecret("k-1", "--key");
    expect(key.code).toBe(0);
    expect(await Bun.password.verify("k-1", key.stdout.trim())).toBe(true);
    expect((await hashSecret("")).code).toBe(2);
  });
});
