/** DEC-SES-05: one-way hashing of passwords and API keys (argon2id in the adapters). */
export interface SecretHasher {
  hash(secret: string): Promise<string>;
  verify(secret: string, hash: string): Promise<boolean>;
}

/** Fast digests for content (checksums, audit hashes of deleted values). */
export interface Digests {
  sha256Hex(data: Uint8Array | string): Promise<string>;
}
