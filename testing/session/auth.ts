import assert from "node:assert/strict";
import { defaultLimits } from "../../core/config/index.ts";
import type { SecretHasher, Stores } from "../../core/ports/index.ts";
import { AuthService, type AuthServiceDeps, sessionJanitor, UsersService } from "../../core/session/index.ts";
import { type Gate, gate, manualClock, storesHoldingAUserRead } from "../fakes.ts";
import { profileWith, seedProfile } from "../fixtures.ts";

/**
 * For the sign-in tests, in the core (with stand-ins for the host's ids, digests and token signer) and in the
 * adapters (with node:crypto and jose, and on the libSQL store) alike.
 */

/**
 * A deterministic, instant hasher (a secret's hash is `fake$` before it): the sign-in tests are about the
 * rules around hashing, not argon2 itself.
 */
export const prefixHasher: SecretHasher = {
  hash: async (secret) => `fake$${secret}`,
  verify: async (secret, hash) => hash === `fake$${secret}`,
};

/**
 * Two accounts with a profile each, and three users (passwords `<name>-password` under prefixHasher): ann may
 * reach all of acme and holds the API key `ann-api-key`, gus only globex's main, nog nothing.
 */
export async function seedSignInTenants(stores: Stores, now: number): Promise<void> {
  await seedProfile(stores, profileWith(), now);
  await stores.tenancy.ensureAccount("globex", now);
  await stores.tenancy.putProfile("globex", profileWith(), now);
  const user = { passwordSeed: null, disabled: false, tokenGeneration: null, createdAt: now, updatedAt: now };
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

/** What the sign-in use cases take from their host rather than from the core. */
export type SignInHost = Pick<AuthServiceDeps, "ids" | "digests" | "tokens" | "eventLoop">;

/** The sign-in services' dependencies: `stores` on `clock`, with the default limits and `hasher`. */
export function signInDeps(
  stores: Stores,
  clock: ReturnType<typeof manualClock>,
  host: SignInHost,
  hasher: SecretHasher = prefixHasher,
) {
  return { stores, hasher, clock, limits: defaultLimits, ...host };
}

/** `stores` seeded with the sign-in tenants (seedSignInTenants) on a manual clock, and the services over them. */
export async function signInSetup(stores: Stores, host: SignInHost) {
  const clock = manualClock();
  await seedSignInTenants(stores, clock.now());
  const deps = signInDeps(stores, clock, host);
  return { stores, clock, auth: new AuthService(deps), users: new UsersService(deps) };
}

const minute = 60_000;

/** The sign-in services on `stores`, and a sweep of the session janitor at their clock's now. */
async function withJanitor(stores: Stores, host: SignInHost) {
  const setUp = await signInSetup(stores, host);
  const janitor = sessionJanitor({
    sessions: stores.sessions,
    lockouts: stores.lockouts,
    clock: setUp.clock,
    policy: { idleMs: 30 * minute, absoluteMs: 12 * 60 * minute },
  });
  return { ...setUp, sweep: () => janitor.runDue(setUp.clock.now()) };
}

/**
 * The lockout records under the session janitor (DEC-SES-01, DEC-AUT-01), run on every store: the in-memory
 * one in the core (core/session/auth.use-cases.test.ts), libSQL's in the adapters
 * (adapters/store-libsql/auth.use-cases.test.ts). Each takes a fresh, empty store, named after the store.
 */
export const lockoutJanitorCases: Record<string, (stores: Stores, host: SignInHost) => Promise<void>> = {
  "[DEC-SES-01] a locked account stays locked through janitor runs until its lock ends, then its record goes": async (
    stores,
    host,
  ) => {
    const { auth, clock, sweep } = await withJanitor(stores, host);
    for (let i = 0; i < 5; i += 1) await auth.login("ann@example.com", "wrong", "local");
    // A janitor run every minute of the lock, the last one a millisecond before it ends.
    clock.advance(minute - 1);
    for (let run = 1; run <= 10; run += 1) {
      assert.equal(await sweep(), 0);
      const refused = await auth.login("ann@example.com", "ann-password", "local");
      assert.equal(refused.ok ? 200 : refused.error.returnCode, 1402);
      if (run < 10) clock.advance(minute);
    }
    clock.advance(minute);
    assert.equal(await sweep(), 1);
    assert.equal(await stores.lockouts.read("password", "ann@example.com"), null);
    assert.equal((await auth.login("ann@example.com", "ann-password", "local")).ok, true);
  },

  "[DEC-SES-01, DEC-AUT-01] the records of made-up names go once their failures leave the window, not before": async (
    stores,
    host,
  ) => {
    const { auth, clock, sweep } = await withJanitor(stores, host);
    for (let i = 0; i < 3; i += 1) await auth.login(`made-up-${i}@example.com`, "x", "local");
    await auth.issueToken("made-up-0@example.com", "x", "local");
    for (let i = 0; i < 4; i += 1) await auth.login("ann@example.com", "wrong", "local");
    clock.advance(10 * minute - 1);
    assert.equal(await sweep(), 0);
    // The 4 failures still count: one more locks the account.
    await auth.login("ann@example.com", "wrong", "local");
    const locked = await auth.login("ann@example.com", "ann-password", "local");
    assert.equal(locked.ok ? 200 : locked.error.returnCode, 1402);
    clock.advance(minute);
    assert.equal(await sweep(), 4);
    assert.equal(await stores.lockouts.read("password", "made-up-0@example.com"), null);
    assert.equal(await stores.lockouts.read("api-key", "made-up-0@example.com"), null);
    assert.notEqual(await stores.lockouts.read("password", "ann@example.com"), null);
  },
};

/** prefixHasher, whose hashing waits at `held`: a password reset's argon2 time, for as long as the test wants. */
function heldHasher(held: Gate): SecretHasher {
  return {
    hash: async (secret) => {
      await held.pass();
      return prefixHasher.hash(secret);
    },
    verify: prefixHasher.verify,
  };
}

/**
 * A password reset waits in its hashing; meanwhile `change` (which ends no tokens) reads the user, and writes only
 * after the reset has: the token issued before the reset stays refused (SES-13).
 */
async function raceWithReset(
  stores: Stores,
  host: SignInHost,
  change: (users: UsersService) => Promise<{ ok: boolean }>,
): Promise<void> {
  const { auth, clock } = await signInSetup(stores, host);
  const bearer = async () => {
    const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!issued.ok) throw new Error(issued.error.message);
    return `Bearer ${issued.value.token}`;
  };
  const accepted = async (token: string) => (await auth.authenticateBearer(token)).ok;
  const before = await bearer();
  const hashing = gate();
  const reading = gate();
  const held = storesHoldingAUserRead(stores, reading);
  const resetter = new UsersService(signInDeps(stores, clock, host, heldHasher(hashing)));
  const changer = new UsersService(signInDeps(held.stores, clock, host));

  const reset = resetter.resetPassword("ann@example.com", "a-new-password-1");
  await hashing.arrived;
  held.hold();
  const changed = change(changer);
  await reading.arrived;
  hashing.open();
  assert.equal((await reset).ok, true);
  reading.open();
  assert.equal((await changed).ok, true);

  assert.equal(await accepted(before), false);
  assert.equal(await accepted(await bearer()), true);
  assert.equal((await auth.login("ann@example.com", "a-new-password-1", "local")).ok, true);
}

/**
 * Second probe, finding 6: a password reset or a disabling ends every bearer token issued before it, exactly,
 * whatever the clocks say: here every step happens in the same millisecond (the manual clock never moves), where a
 * cutoff kept in whole seconds let a token minted between two resets of one second survive the second. Run on
 * every store: the in-memory one in the core (core/session/auth.use-cases.test.ts), libSQL's and PostgreSQL's in
 * the adapters.
 */
export const tokenEndingCases: Record<string, (stores: Stores, host: SignInHost) => Promise<void>> = {
  "reset, a token, a second reset in the same millisecond: the token is refused, one issued after it works": async (
    stores,
    host,
  ) => {
    const { auth, users } = await signInSetup(stores, host);
    const bearer = async () => {
      const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
      if (!issued.ok) throw new Error(issued.error.message);
      return `Bearer ${issued.value.token}`;
    };
    const accepted = async (token: string) => (await auth.authenticateBearer(token)).ok;
    assert.equal((await users.resetPassword("ann@example.com", "a-new-password-1")).ok, true);
    const between = await bearer();
    assert.equal(await accepted(between), true);
    assert.equal((await users.resetPassword("ann@example.com", "a-new-password-2")).ok, true);
    assert.equal(await accepted(between), false);
    const after = await bearer();
    assert.equal(await accepted(after), true);
    // A disabling ends it as well, also once the user is enabled again in the same millisecond.
    assert.equal((await users.setDisabled("ann@example.com", true)).ok, true);
    assert.equal((await users.setDisabled("ann@example.com", false)).ok, true);
    assert.equal(await accepted(after), false);
    assert.equal(await accepted(await bearer()), true);
  },

  "[SES-13] a grant change that read the user during a reset's hashing does not bring back the tokens it ended": (
    stores,
    host,
  ) =>
    raceWithReset(stores, host, (users) =>
      users.setGrants("ann@example.com", [{ account: "acme", profiles: ["main"] }]),
    ),

  "[SES-13] an enabling that read the user during a reset's hashing does not bring back the tokens it ended": (
    stores,
    host,
  ) => raceWithReset(stores, host, (users) => users.setDisabled("ann@example.com", false)),

  "[SES-13] a disabling committed during a reset's hashing stays: the reset writes only the password": async (
    stores,
    host,
  ) => {
    const { auth, clock, users } = await signInSetup(stores, host);
    const hashing = gate();
    const resetter = new UsersService(signInDeps(stores, clock, host, heldHasher(hashing)));
    const reset = resetter.resetPassword("ann@example.com", "a-new-password-1");
    await hashing.arrived;
    assert.equal((await users.setGrants("ann@example.com", [])).ok, true);
    assert.equal((await users.setDisabled("ann@example.com", true)).ok, true);
    hashing.open();
    assert.equal((await reset).ok, true);
    const user = await stores.tenancy.findUser("ann@example.com");
    assert.deepEqual({ disabled: user?.disabled, grants: user?.grants }, { disabled: true, grants: [] });
    const login = await auth.login("ann@example.com", "a-new-password-1", "local");
    assert.equal(login.ok ? 200 : login.error.returnCode, 1469);
  },

  "changing grants or enabling a user who is enabled leaves the user's tokens working": async (stores, host) => {
    const { auth, users } = await signInSetup(stores, host);
    const issued = await auth.issueToken("ann@example.com", "ann-api-key", "local");
    if (!issued.ok) throw new Error(issued.error.message);
    await users.setGrants("ann@example.com", [{ account: "acme", profiles: "*" }]);
    await users.setDisabled("ann@example.com", false);
    assert.equal((await auth.authenticateBearer(`Bearer ${issued.value.token}`)).ok, true);
  },
};
