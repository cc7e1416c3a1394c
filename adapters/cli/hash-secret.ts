/**
 * Prints the argon2id hash of a password or API key, for the `{ hash: ... }` form of the configuration file.
 * The secret is read from standard input (so it stays out of the shell history):
 *   printf '%s' 'my-password' | npm run --silent hash-secret
 * A password is at least 8 characters, as the admin API takes it; `-- --key` hashes an API key of any length.
 */

import { passwordProblem, preparingSecrets } from "../../core/session/index.ts";
import { characterCount } from "../../core/values/index.ts";
import { createArgon2Hasher } from "../runtime/crypto.ts";

const secret = (await new Response(Bun.stdin.stream()).text()).replace(/\r?\n$/, "");
if (secret.length === 0) {
  process.stderr.write(
    "hash-secret: give the secret on standard input, e.g. printf '%s' 'my-password' | npm run --silent hash-secret\n",
  );
  process.exit(2);
}
// A password shorter than the admin API takes would be a user nobody could give that password through it.
const tooShort = passwordProblem(secret);
if (tooShort !== null && !process.argv.includes("--key")) {
  process.stderr.write(
    `hash-secret: a password ${tooShort} (this one has ${characterCount(secret)}); for an API key, add --key\n`,
  );
  process.exit(2);
}
process.stdout.write(`${await preparingSecrets(createArgon2Hasher()).hash(secret)}\n`);
