/** Randomness for identifiers and secrets, so rules that need it stay pure and tests can fix it. */
export interface IdSource {
  /** `bytes` random bytes from a cryptographically strong source, as lower-case hex. */
  randomHex(bytes: number): string;
  /** `bytes` random bytes, base64url without padding (session ids, tokens). */
  randomToken(bytes: number): string;
  /** A number in [0, 1) (delays, sampling); not for secrets. */
  randomUnit(): number;
}
