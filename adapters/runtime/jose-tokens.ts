import type { TokenSigner } from "../../core/ports/index.ts";

const keyOf = (secret: string) => new TextEncoder().encode(secret);

/** jose, loaded by the first token signed or checked: a service that no one asks for a token never loads it. */
const loadJose = () => import("jose");

/** The private claim of a token's generation (TokenClaims.generation), absent when it has none. */
const generationClaim = "gen";

/**
 * The TokenSigner port with jose: JWTs signed with HS256 under the secret's UTF-8 bytes. A token jose refuses
 * (a bad signature, another algorithm, expired, not yet valid, a claim missing, not a JWT at all) verifies to
 * null; any other error is the signer's own and is thrown.
 */
export const joseTokenSigner: TokenSigner = {
  async sign(claims, secret) {
    const { SignJWT } = await loadJose();
    return new SignJWT(claims.generation === null ? {} : { [generationClaim]: claims.generation })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(claims.subject)
      .setIssuer(claims.issuer)
      .setIssuedAt(claims.issuedAt)
      .setNotBefore(claims.notBefore)
      .setExpirationTime(claims.expiresAt)
      .setJti(claims.id)
      .sign(keyOf(secret));
  },

  async verify(token, secret, expected) {
    const { errors: joseErrors, jwtVerify } = await loadJose();
    try {
      const { payload } = await jwtVerify(token, keyOf(secret), {
        issuer: expected.issuer,
        algorithms: ["HS256"],
        currentDate: new Date(expected.nowMs),
        requiredClaims: ["sub", "exp", "iat"],
      });
      const generation = payload[generationClaim];
      // Only this signer writes the claim, as text: anything else is not a token of ours.
      if (generation !== undefined && typeof generation !== "string") return null;
      return { subject: payload.sub as string, issuedAt: payload.iat as number, generation: generation ?? null };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return null;
      throw error;
    }
  },
};
