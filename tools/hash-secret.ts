/**
 * Prints the argon2id hash of a password or API key, for the `{ hash: ... }` form of the configuration file.
 * The secret is read from standard input (so it stays out of the shell history):
 *   printf '%s' 'my-password' | npm run --silent hash-secret
 */
import { createArgon2Hasher } from "../adapters/runtime/crypto.ts";
import { preparingSecrets } from "../core/session/secrets.rules.ts";

const secret = (await new Response(Bun.stdin.stream()).text()).replace(/\r?\n$/, "");
if (secret.length === 0) {
  process.stderr.write("hash-secret: give the secret on standard input, e.g. printf '%s' 'my-password' | npm run --silent hash-secret\n");
  process.exit(2);
}
process.stdout.write(`${await preparingSecrets(createArgon2Hasher()).hash(secret)}\n`);
