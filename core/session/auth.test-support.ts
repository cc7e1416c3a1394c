import type { SecretHasher } from "../ports/hashing.port.ts";
import type { Stores } from "../ports/stores.ts";

/**
 * For the sign-in tests, in the core and against the adapters' stores alike. Not a test file, so it imports
 * nothing but the core.
 */

/**
 * A deterministic, instant hasher (a secret's hash is `fake$` before it): the sign-in tests are about the
 * rules around hashing, not argon2 itself.
 */
export const prefixHasher: SecretHasher = {
  hash: async (secret) => `fake$${secret}`,
  verify: async (secret, hash) => hash === `fake$${secret}`,
};

/** A clock that stands still until a test moves it. */
export function manualClock(start = Date.UTC(2026, 10, 21)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/**
 * Two accounts with a profile each, and three users (passwords `<name>-password` under prefixHasher): ann may
 * reach all of acme and holds the API key `ann-api-key`, gus only globex's main, nog nothing.
 */
export async function seedSignInTenants(stores: Stores, now: number): Promise<void> {
  await stores.tenancy.ensureAccount("acme", now);
  await stores.tenancy.putProfile(
    "acme",
    { name: "main", visitorIdAttributes: [], attributes: [], audiences: [], engines: [], fileDefinitions: [] },
    now,
  );
  await stores.tenancy.ensureAccount("globex", now);
  await stores.tenancy.putProfile(
    "globex",
    { name: "main", visitorIdAttributes: [], attributes: [], audiences: [], engines: [], fileDefinitions: [] },
    now,
  );
  const user = { passwordSeed: null, disabled: false, tokensValidAfter: null, createdAt: now, updatedAt: now };
  await stores.tenancy.putUser({
    ...user,
    email: "ann@example.com",
    passwordHash: "fake$ann-password",
    grants: [{ account: "acme", profiles: "*" }],
  });
  await stores.tenancy.putUser({
    ...user,
    email: "gus@example.com",
    passwordHash: "fake$gus-password",
    grants: [{ account: "globex", profiles: ["main"] }],
  });
  await stores.tenancy.putUser({ ...user, email: "nog@example.com", passwordHash: "fake$nog-password", grants: [] });
  await stores.tenancy.putApiKey({
    id: "ann-key",
    userEmail: "ann@example.com",
    keyHash: "fake$ann-api-key",
    keySeed: null,
    createdAt: now,
    revokedAt: null,
  });
}
