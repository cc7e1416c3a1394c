import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { countingIds } from "../../testing/fakes.ts";
import {
  bearerTokenOf,
  decideTenantAccess,
  grantCovers,
  grantCoversAccount,
  isSessionLive,
  isTokenOfCurrentGeneration,
  mayLogIn,
  mergeGrants,
  newTokenGeneration,
  sessionPolicyFromLimits,
  shouldTouchSession,
} from "./session.rules.ts";

const policy = sessionPolicyFromLimits({ sessionIdleMinutes: 30, sessionAbsoluteHours: 12 });

describe("bearer tokens and a password reset or a disabling (tokenGeneration; second probe, finding 6)", () => {
  it("accepts a token of the user's current generation only; a user whose tokens never ended takes those that name none", () => {
    assert.equal(isTokenOfCurrentGeneration("b2", "b2"), true);
    assert.equal(isTokenOfCurrentGeneration("a1", "b2"), false);
    assert.equal(isTokenOfCurrentGeneration(null, "b2"), false);
    assert.equal(isTokenOfCurrentGeneration("b2", null), false);
    assert.equal(isTokenOfCurrentGeneration(null, null), true);
  });

  it("names a new generation with 128 bits of the host's id source, in hex", () => {
    const ids = countingIds();
    assert.deepEqual(
      [newTokenGeneration(ids), newTokenGeneration(ids)],
      ["00000000000000000000000000000001", "00000000000000000000000000000002"],
    );
  });
});

describe("session lifetime (SES-12, DEC-SES-02)", () => {
  it("ends 30 minutes after the last use", () => {
    const session = { createdAt: 0, lastSeenAt: 0 };
    assert.equal(isSessionLive(session, 30 * 60_000 - 1, policy), true);
    assert.equal(isSessionLive(session, 30 * 60_000, policy), false);
  });

  it("ends 12 hours after login however busy it is", () => {
    const session = { createdAt: 0, lastSeenAt: 12 * 3_600_000 - 1000 };
    assert.equal(isSessionLive(session, 12 * 3_600_000 - 1, policy), true);
    assert.equal(isSessionLive(session, 12 * 3_600_000, policy), false);
  });

  it("writes every later use back, so idle time counts from the true last use", () => {
    assert.equal(shouldTouchSession({ createdAt: 0, lastSeenAt: 1_000 }, 1_000), false);
    assert.equal(shouldTouchSession({ createdAt: 0, lastSeenAt: 1_000 }, 1_001), true);
  });
});

describe("grants and tenant access (AUT-03, DEC-GEN-03/04, DEC-SES-04)", () => {
  it("a grant covers all profiles of its account with *, or the listed ones", () => {
    assert.equal(grantCovers([{ account: "acme", profiles: "*" }], "acme", "dev"), true);
    assert.equal(grantCovers([{ account: "acme", profiles: ["main"] }], "acme", "dev"), false);
    assert.equal(grantCovers([{ account: "acme", profiles: ["main"] }], "acme", "main"), true);
    assert.equal(grantCovers([{ account: "acme", profiles: "*" }], "globex", "main"), false);
  });

  it("existence is decided before the grant", () => {
    const grants = [{ account: "acme", profiles: "*" as const }];
    assert.equal(
      decideTenantAccess({ accountExists: false, profileExists: false, grants, account: "x", profile: "main" }),
      "unknown-account",
    );
    assert.equal(
      decideTenantAccess({ accountExists: true, profileExists: false, grants, account: "acme", profile: "x" }),
      "unknown-profile",
    );
    assert.equal(
      decideTenantAccess({ accountExists: true, profileExists: true, grants: [], account: "acme", profile: "main" }),
      "no-grant",
    );
    assert.equal(
      decideTenantAccess({ accountExists: true, profileExists: true, grants, account: "acme", profile: "main" }),
      "granted",
    );
  });

  it("no grant on one account ever opens another (any grants, any names)", () => {
    const name = fc.stringMatching(/^[a-z]{1,4}$/);
    fc.assert(
      fc.property(
        fc.array(fc.record({ account: name, profiles: fc.oneof(fc.constant("*" as const), fc.array(name)) })),
        name,
        name,
        (grants, account, profile) => {
          const granted =
            decideTenantAccess({ accountExists: true, profileExists: true, grants, account, profile }) === "granted";
          const someGrantNamesIt = grants.some(
            (grant) => grant.account === account && (grant.profiles === "*" || grant.profiles.includes(profile)),
          );
          assert.equal(granted, someGrantNamesIt);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it("a disabled user, or one without any grant, may not log in", () => {
    assert.equal(mayLogIn({ disabled: false, grants: [{ account: "acme", profiles: "*" }] }), true);
    assert.equal(mayLogIn({ disabled: true, grants: [{ account: "acme", profiles: "*" }] }), false);
    assert.equal(mayLogIn({ disabled: false, grants: [] }), false);
    assert.equal(mayLogIn({ disabled: false, grants: [{ account: "acme", profiles: [] }] }), false);
  });
});

describe("grants kept as one per account (DEC-SES-04)", () => {
  it("merging allows exactly what the list given allows, with each account once and each profile once", () => {
    const name = fc.constantFrom("acme", "globex", "main", "dev", "eu");
    const grant = fc.record({
      account: name,
      profiles: fc.oneof(fc.constant("*" as const), fc.array(name, { maxLength: 4 })),
    });
    fc.assert(
      fc.property(fc.array(grant, { maxLength: 8 }), name, name, (grants, account, profile) => {
        const merged = mergeGrants(grants);
        assert.equal(grantCovers(merged, account, profile), grantCovers(grants, account, profile));
        assert.equal(grantCoversAccount(merged, account), grantCoversAccount(grants, account));
        assert.equal(new Set(merged.map((each) => each.account)).size, merged.length);
        for (const each of merged)
          if (each.profiles !== "*") assert.equal(new Set(each.profiles).size, each.profiles.length);
      }),
    );
    assert.deepEqual(
      mergeGrants([
        { account: "acme", profiles: ["main", "main"] },
        { account: "acme", profiles: "*" },
        { account: "globex", profiles: ["main"] },
      ]),
      [
        { account: "acme", profiles: "*" },
        { account: "globex", profiles: ["main"] },
      ],
    );
  });
});

describe("the token of a Bearer header (DEC-GEN-02, DEC-OPS-01)", () => {
  it("reads the scheme in any case and one token without white space; anything else is none", () => {
    assert.equal(bearerTokenOf("Bearer abc.def"), "abc.def");
    assert.equal(bearerTokenOf("bearer   abc "), "abc");
    for (const header of [undefined, null, "", "Bearer", "Bearer ", "Basic abc", "Bearer a b", "Bearerabc"])
      assert.equal(bearerTokenOf(header), null, String(header));
  });
});
