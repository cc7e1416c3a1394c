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
  return characterCount(password) >= minimumPasswordLength
    ? null
    : `must be at least ${minimumPasswordLength} characters`;
}

/**
 * Hashes and checks secrets in their prepared form. A hash stored before secrets were prepared (from a
 * secret not in NFC) still verifies with the secret exactly as it was typed then.
 */
export function preparingSecrets(hasher: SecretHasher): SecretHasher {
  return {
    hash: (secret, source) => hasher.hash(preparedSecret(secret), source),
    async verify(secret, hash, source) {
      const prepared = preparedSecret(secret);
      if (await hasher.verify(prepared, hash, source)) return true;
      return prepared !== secret && hasher.verify(secret, hash, source);
    },
  };
}

/**
 * Keys issued by the admin API name their record: `svc_<key id>.<secret>`, so checking one costs one hash
 * whatever number of keys its user holds (a user's keys tried one by one made /v2/auth take as long as the
 * user had keys: its timing told how many, and each attempt against a user of many keys cost many hashes).
 */
export function issuedApiKey(keyId: string, secret: string): string {
  return `svc_${keyId}.${secret}`;
}

/** The `keySeed` of a key issued in the form of `issuedApiKey` (configured keys have their own seeds). */
export const issuedApiKeySeed = "issued";

const issuedKeyShape = /^svc_([A-Za-z0-9_~-]{1,100})\.[A-Za-z0-9_-]{16,}$/;

/** The key id a presented key names, when it has the shape of an issued key; otherwise null. */
export function apiKeyIdNamedBy(presented: string): string | null {
  return issuedKeyShape.exec(presented)?.[1] ?? null;
}

/**
 * The stored keys a presented key is checked against, out of its user's active keys: the key it names when
 * the user holds one of that id; otherwise only the keys not issued in the naming form (configured keys,
 * and keys issued before keys named their record), since an issued key verifies only under its own name.
 */
export function apiKeysToCheck<K extends { readonly id: string; readonly keySeed: string | null }>(
  presented: string,
  activeKeys: readonly K[],
): K[] {
  const named = apiKeyIdNamedBy(presented);
  const own = named === null ? undefined : activeKeys.find((key) => key.id === named);
  return own ? [own] : activeKeys.filter((key) => key.keySeed !== issuedApiKeySeed);
}
