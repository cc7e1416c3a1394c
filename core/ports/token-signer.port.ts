/**
 * DEC-AUT-01: what a bearer token states. Times are whole seconds since the epoch, as JWT counts them, on the
 * virtual clock (DEC-OPS-02).
 */
export interface TokenClaims {
  /** The user the token was issued to (sub). */
  readonly subject: string;
  /** Who issued it (iss). */
  readonly issuer: string;
  /** When it counts as issued (iat). */
  readonly issuedAt: number;
  /** The first second it may be used in (nbf). */
  readonly notBefore: number;
  /** The second from which it is refused (exp). */
  readonly expiresAt: number;
  /** A random name of this token (jti), so that two tokens of one second differ. */
  readonly id: string;
  /** The user's generation of tokens it was issued in (UserRecord.tokenGeneration); null: none is stated. */
  readonly generation: string | null;
}

/** What a token the signer verified says of its holder. */
export interface VerifiedToken {
  readonly subject: string;
  readonly issuedAt: number;
  /** The generation it states; null when it states none. */
  readonly generation: string | null;
}

/**
 * Signed bearer tokens (JWT, HS256 with jose in the adapters): the use case decides what a token claims and
 * keeps the shared secret in the store, so that every node signs and checks with the same one; the signer owns
 * the format and the signature.
 */
export interface TokenSigner {
  /** A token stating `claims`, signed with `secret`. */
  sign(claims: TokenClaims, secret: string): Promise<string>;
  /**
   * What `token` says, when it is signed with `secret`, was issued by `issuer`, states its subject, issue time
   * and expiry, and holds at `nowMs` (milliseconds since the epoch, the virtual clock): not before its notBefore,
   * and before its expiry. Null for any token it cannot verify, whatever is wrong with it; it throws only when
   * it could not do the work itself.
   */
  verify(token: string, secret: string, expected: { issuer: string; nowMs: number }): Promise<VerifiedToken | null>;
}
