import { describe, expect, it } from "bun:test";
import type { TokenClaims } from "../../core/ports/index.ts";
import { signInSetup } from "../../testing/session/auth.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { cryptoIds, nodeDigests } from "./crypto.ts";
import { hostEventLoop } from "./event-loop.ts";
import { joseTokenSigner } from "./jose-tokens.ts";

const secret = "a-secret-of-the-store-0123456789abcdef";
const start = Date.UTC(2026, 10, 21);
const startSeconds = start / 1000;
const claims: TokenClaims = {
  subject: "ann@example.com",
  issuer: "svc-hub",
  issuedAt: startSeconds,
  notBefore: startSeconds,
  expiresAt: startSeconds + 1800,
  id: "0123456789abcdef0123456789abcdef",
  generation: null,
};

function payloadOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1] as string, "base64url").toString()) as Record<string, unknown>;
}

describe("the jose token signer (DEC-AUT-01)", () => {
  it("signs an HS256 JWT of the claims, which verifies to its subject and issue time while it holds", async () => {
    const token = await joseTokenSigner.sign(claims, secret);
    const header = JSON.parse(Buffer.from(token.split(".")[0] as string, "base64url").toString());
    expect(header).toEqual({ alg: "HS256", typ: "JWT" });
    expect(payloadOf(token)).toEqual({
      sub: claims.subject,
      iss: claims.issuer,
      iat: claims.issuedAt,
      nbf: claims.notBefore,
      exp: claims.expiresAt,
      jti: claims.id,
    });
    const expected = { issuer: "svc-hub", nowMs: start };
    expect(await joseTokenSigner.verify(token, secret, expected)).toEqual({
      subject: "ann@example.com",
      issuedAt: startSeconds,
      generation: null,
    });
    expect(await joseTokenSigner.verify(token, secret, { ...expected, nowMs: start + 1799_999 })).not.toBeNull();
  });

  it("states the user's generation of tokens in the claim gen, when it has one, and verifies to it (second probe, finding 6)", async () => {
    const generation = "6d0c1e7a9b3f42c58e1d2a4b7c9f0e13";
    const token = await joseTokenSigner.sign({ ...claims, generation }, secret);
    expect(payloadOf(token).gen).toBe(generation);
    expect(await joseTokenSigner.verify(token, secret, { issuer: "svc-hub", nowMs: start })).toEqual({
      subject: "ann@example.com",
      issuedAt: startSeconds,
      generation,
    });
  });

  it("verifies to null a token expired or not yet valid at the given now, of another issuer or another secret", async () => {
    const token = await joseTokenSigner.sign(claims, secret);
    const expected = { issuer: "svc-hub", nowMs: start };
    expect(await joseTokenSigner.verify(token, secret, { ...expected, nowMs: start + 1800_000 })).toBeNull();
    expect(await joseTokenSigner.verify(token, secret, { ...expected, nowMs: start - 1000 })).toBeNull();
    expect(await joseTokenSigner.verify(token, secret, { ...expected, issuer: "someone-else" })).toBeNull();
    expect(await joseTokenSigner.verify(token, `${secret}x`, expected)).toBeNull();
  });

  it("verifies to null what is not a JWT at all, or one whose signature does not match its claims", async () => {
    const token = await joseTokenSigner.sign(claims, secret);
    const [header, payload, signature] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ ...payloadOf(token), sub: "gus@example.com" })).toString("base64url");
    const expected = { issuer: "svc-hub", nowMs: start };
    for (const wrong of ["", "ann-api-key", "a.b.c", `${header}.${forged}.${signature}`, `${header}.${payload}.`])
      expect(await joseTokenSigner.verify(wrong, secret, expected)).toBeNull();
  });
});

describe("AuthService with the jose token signer: bearer tokens (AUT-01, AUT-02, DEC-AUT-01/02)", () => {
  const setup = () =>
    signInSetup(createMemoryStores(), {
      ids: cryptoIds,
      digests: nodeDigests,
      tokens: joseTokenSigner,
      eventLoop: hostEventLoop,
    });

  it("a token from the API key opens v2 calls for 30 minutes of virtual time", async () => {
    const { auth, clock } = await setup();
    const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!issued.ok) throw new Error(issued.error.message);
    const claims = JSON.parse(
      Buffer.from(issued.value.token.split(".")[1] as string, "base64url").toString(),
    ) as Record<string, number | string>;
    expect(claims.sub).toBe("ann@example.com");
    expect(Number(claims.exp) - Number(claims.iat)).toBe(1800);
    expect(claims.nbf).toBe(claims.iat);
    expect((await auth.authenticateBearer(`Bearer ${issued.value.token}`)).ok).toBe(true);
    clock.advance(29 * 60_000);
    expect((await auth.authenticateBearer(`Bearer ${issued.value.token}`)).ok).toBe(true);
    clock.advance(2 * 60_000);
    expect((await auth.authenticateBearer(`Bearer ${issued.value.token}`)).ok).toBe(false);
  });

  it("the API key itself, a forged token and a missing header are refused with 1401", async () => {
    const { auth } = await setup();
    const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!issued.ok) throw new Error("no token");
    const [header, payload] = issued.value.token.split(".");
    const forgedPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload as string, "base64url").toString()), sub: "gus@example.com" }),
    ).toString("base64url");
    for (const authorization of [
      "Bearer ann-api-key",
      `Bearer ${header}.${forgedPayload}.AAAA`,
      `Bearer ${header}.${payload}.`,
      undefined,
      "Basic abc",
      `bearer ${issued.value.token}x`,
    ]) {
      const result = await auth.authenticateBearer(authorization);
      expect(result.ok ? 0 : result.error.returnCode).toBe(1401);
    }
  });
});
