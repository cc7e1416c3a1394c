import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { SecretHasher } from "../ports/hashing.port.ts";
import {
  apiKeyIdNamedBy,
  apiKeysToCheck,
  issuedApiKey,
  issuedApiKeySeed,
  preparedSecret,
  preparingSecrets,
} from "./secrets.rules.ts";

/** A hasher that stores the secret itself, so a test sees exactly what was hashed. */
const plain: SecretHasher = {
  hash: async (secret) => `plain:${secret}`,
  verify: async (secret, hash) => hash === `plain:${secret}`,
};

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
      fc.asyncProperty(
        fc.string({ unit: "grapheme-composite" }),
        fc.string({ unit: "grapheme-composite" }),
        async (set, typed) => {
          const hasher = preparingSecrets(plain);
          const accepted = await hasher.verify(typed, await hasher.hash(set));
          assert.equal(accepted, preparedSecret(typed) === preparedSecret(set));
        },
      ),
    );
  });
});

describe("issued API keys name their record (one hash a check, however many keys a user holds)", () => {
  const key = (id: string, keySeed: string | null) => ({ id, keySeed });
  const keys = [
    key("ci", issuedApiKeySeed),
    key("deploy", issuedApiKeySeed),
    key("from-file", "env:KEY:abc"),
    key("old", null),
  ];

  it("an issued key reads back its id; other shapes name nothing", () => {
    assert.equal(apiKeyIdNamedBy(issuedApiKey("ci", "x".repeat(43))), "ci");
    for (const other of [
      `svc_${"x".repeat(43)}`,
      "demo-key-0001-acme",
      "svc_ci.",
      "svc_ci.short",
      "svc_a b.xxxxxxxxxxxxxxxxxxxx",
      "",
    ]) {
      assert.equal(apiKeyIdNamedBy(other), null, other);
    }
  });

  it("a key naming one of the user's keys is checked against that key alone", () => {
    assert.deepEqual(apiKeysToCheck(issuedApiKey("deploy", "y".repeat(43)), keys), [key("deploy", issuedApiKeySeed)]);
    assert.deepEqual(apiKeysToCheck(issuedApiKey("from-file", "y".repeat(43)), keys), [
      key("from-file", "env:KEY:abc"),
    ]);
  });

  it("anything else is checked against the keys that do not name themselves, never the issued ones", () => {
    for (const presented of ["wrong", issuedApiKey("gone", "z".repeat(43)), `svc_${"z".repeat(43)}`]) {
      assert.deepEqual(apiKeysToCheck(presented, keys), [key("from-file", "env:KEY:abc"), key("old", null)]);
    }
  });

  it("property: an issued key's id always reads back, whatever its id and secret", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9_~-]{1,100}$/),
        fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/),
        (id, secret) => {
          assert.equal(apiKeyIdNamedBy(issuedApiKey(id, secret)), id);
        },
      ),
    );
  });
});
