import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { SecretHasher } from "../ports/hashing.port.ts";
import { preparedSecret, preparingSecrets } from "./secrets.rules.ts";

/** A hasher that stores the secret itself, so a test sees exactly what was hashed. */
const plain: SecretHasher = { hash: async (secret) => `plain:${secret}`, verify: async (secret, hash) => hash === `plain:${secret}` };

const composed = "caf\u00e9";
const decomposed = "cafe\u0301";

describe("secrets are hashed in their composed form (DEC-SES-05)", () => {
  it("a password typed decomposed verifies against one set composed, and the other way round", async () => {
    const hasher = preparingSecrets(plain);
    assert.equal(await hasher.hash(decomposed), `plain:${composed}`);
    assert.equal(await hasher.verify(composed, await hasher.hash(decomposed)), true);
    assert.equal(await hasher.verify(decomposed, await hasher.hash(composed)), true);
  });

  it("a hash stored from a decomposed secret before secrets were prepared still verifies with that secret", async () => {
    const hasher = preparingSecrets(plain);
    assert.equal(await hasher.verify(decomposed, `plain:${decomposed}`), true);
    assert.equal(await hasher.verify(composed, `plain:${decomposed}`), false);
  });

  it("a wrong secret is refused, whatever its form", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme-composite" }), fc.string({ unit: "grapheme-composite" }), async (set, typed) => {
        const hasher = preparingSecrets(plain);
        const accepted = await hasher.verify(typed, await hasher.hash(set));
        assert.equal(accepted, preparedSecret(typed) === preparedSecret(set));
      }),
    );
  });
});
