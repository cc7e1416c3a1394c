import type { SecretHasher } from "../ports/hashing.port.ts";
import { characterCount } from "../values/characters.ts";

/**
 * A password or key as it is hashed: in Unicode's composed form (NFC), as RFC 8265's OpaqueString profile
 * prepares passwords. The same "é" typed on two systems may arrive as one code point or as "e" and a combining
 * accent; both name the same secret.
 */
export function preparedSecret(secret: string): string {
  return secret.normalize("NFC");
}

/** The shortest password taken, wherever it is set (the admin API, a configuration's `{ env }`, hash-secret). */
export const minimumPasswordLength = 8;

/** Why a password is refused, or null when it is long enough. */
export function passwordProblem(password: string): string | null {
  return characterCount(password) >= minimumPasswordLength ? null : `must be at least ${minimumPasswordLength} characters`;
}

/**
 * Hashes and checks secrets in their prepared form. A hash stored before secrets were prepared (from a
 * secret not in NFC) still verifies with the secret exactly as it was typed then.
 */
export function preparingSecrets(hasher: SecretHasher): SecretHasher {
  return {
    hash: (secret) => hasher.hash(preparedSecret(secret)),
    async verify(secret, hash) {
      const prepared = preparedSecret(secret);
      if (await hasher.verify(prepared, hash)) return true;
      return prepared !== secret && hasher.verify(secret, hash);
    },
  };
}
