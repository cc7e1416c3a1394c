/**
 * DEC-SES-05: one-way hashing of passwords and API keys (argon2id in the adapters). `source` says for whom the
 * work is done (a login's client address), so that a hasher that queues its work can share the queue fairly
 * between sources; absent, the work is the service's own (applying the configuration, the admin API).
 */
export interface SecretHasher {
  hash(secret: string, source?: string): Promise<string>;
  verify(secret: string, hash: string, source?: string): Promise<boolean>;
}

/** Fast digests for content (checksums, audit hashes of deleted values). */
export interface Digests {
  sha256Hex(data: Uint8Array | string): Promise<string>;
}
