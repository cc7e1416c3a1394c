/**
 * The scenarios read the demo configuration they rely on (engines, attributes, audience, badge, file
 * definition, revision, the other account's profile) from the target's fixtures, not from literals: run
 * against svc-hub in-process with every fixture given explicitly, they pass; with a fixture pointing
 * elsewhere, they fail naming what they were given; against demo.md's tenants alone, the scenarios that need
 * what svc-hub's demo adds to them (an optional fixture, a visitor ID attribute on acme/dev) are skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { parseConfigText } from "../adapters/config/config.loader.ts";
import { demoConfigPath } from "../adapters/config/demo-config.ts";
import {
  type InProcessService,
  openInProcessTarget,
} from "../conformance/implementations/svc-hub/in-process-target.ts";
import { allScenarios } from "../conformance/index.ts";
import { runScenarios } from "./runner.ts";
import type { Scenario } from "./scenario.ts";
import { demoFixtures, type TargetFixtures } from "./target.ts";

/** The demo's values, written out rather than taken from demoFixtures, so the plumbing of each field is what is tested. */
const explicitFixtures: TargetFixtures = {
  account: "acme",
  profile: "main",
  otherProfile: "dev",
  otherAccount: "globex",
  otherAccountProfile: "main",
  user: { email: "demo@example.com", password: "demo-password-1", apiKey: "demo-key-0001-acme" },
  otherUser: { email: "globex@example.com", password: "globex-password-1", apiKey: "demo-key-0002-globex" },
  userWithoutGrants: { email: "nogrant@example.com", password: "nogrant-password-1" },
  purchaseEvent: "purchase",
  visitorIdAttributes: {
    email: { id: 5120, name: "email_address", parameter: "email_address" },
    customer: { id: 5121, name: "customer_id", parameter: "customer_id" },
  },
  attributes: {
    eventCount: { id: 5201, name: "Lifetime event count" },
    lastEventName: { id: 5202, name: "Last event name" },
    hasPurchased: { id: 5203, name: "Has purchased" },
    lastPurchase: { id: 5204, name: "Last purchase" },
    email: { id: 5206, name: "Email" },
    lastPurchaseAmount: { id: 5207, name: "Last purchase amount", parameter: "amount" },
  },
  badge: { id: 5205, name: "Buyer" },
  audience: { id: 7, name: "Purchasers" },
  engines: {
    names: "demo-engine",
    ids: "demo-engine-ids",
    disabled: "disabled-engine",
    attributesOnly: "demo-engine-attributes",
  },
  fileDefinition: {
    prefix: "purchases",
    visitorIdColumn: "email",
    amountColumn: "amount",
    dateColumn: "purchased_at",
    dateFormat: "yyyy-MM-dd HH:mm",
  },
  revision: { target: "prod", files: ["utag.js", "utag.1.js", "utag.2.js", "utag.sync.js", "mobile.html"] },
};

/** svc-hub's demo configuration without what it adds to demo.md for the optional fixtures: acme/dev's visitor ID attributes, the attributes-only engine. */
function demoMdConfig() {
  const demo = JSON.parse(readFileSync(demoConfigPath, "utf8")) as {
    accounts: Array<{
      name: string;
      profiles: Array<{ name: string; visitorIdAttributes?: unknown[]; engines?: Array<{ id: string }> }>;
    }>;
  };
  const acme = demo.accounts.find((account) => account.name === "acme");
  for (const profile of acme?.profiles ?? []) {
    if (profile.name === "dev") delete profile.visitorIdAttributes;
    if (profile.engines) profile.engines = profile.engines.filter((engine) => engine.id !== "demo-engine-attributes");
  }
  const parsed = parseConfigText(JSON.stringify(demo), "json", demoConfigPath);
  if (!parsed.ok) throw new Error(parsed.error.format());
  return parsed.value;
}

function scenario(titleStart: string): Scenario {
  const found = allScenarios.find((entry) => entry.title.startsWith(titleStart));
  if (!found) throw new Error(`no scenario starts with ${titleStart}`);
  return found;
}

/** One scenario of each area that reads the new fixtures. */
const reading = [
  "[MOM-01, MOM-03, VID-01, DEC-PRO-01, DEC-PRO-03, DEC-MOM-04]", // engines.names, attribute names, badge, audience, purchaseEvent
  "[MOM-04, DEC-MOM-01]", // engines.ids, attribute ids, audience id
  "[MOM-08, DEC-MOM-02]", // engines.disabled
  "[MOM-05, MOM-11, DEC-MOM-04]", // the PII attribute, lastPurchaseAmount and its parameter
  "[MOM-05, DEC-MOM-01] an engine that selects neither", // engines.attributesOnly (optional), the badge and audience names
  "[PRV-03, DEC-PRV-01]", // ids and names of every attribute, visitor ID attribute
  "[PRV-04]", // the customer visitor ID attribute
  "[PRV-06] a pending deletion is answered again only in its own profile", // otherProfile with the e-mail visitor ID attribute
  "[DEC-FIL-04, DEC-FIL-01, VID-02]", // fileDefinition, the visitor ID attribute's id
  "[FIL-09, DEC-FIL-03] visitor ID column missing", // fileDefinition.visitorIdColumn
  "[FIL-01, FIL-02, DEC-GEN-04, DEC-GEN-03]", // otherAccount/otherAccountProfile
  "[REV-03, REV-04, REV-05]", // revision.target, revision.files
  "[REV-06, REV-07, REV-08, DEC-REV-02] the demo bundle", // revision.target, revision.files
  "[VID-06]", // the other account/profile's TAPID entry
  "[VID-08, COL-14, DEC-COL-11]", // the visitor ID attributes' parameters
  "[COL-15, DEC-COL-07] the 100 events per second are the account's", // account with profile and otherProfile
].map(scenario);

let opened: InProcessService;
beforeAll(async () => {
  opened = await openInProcessTarget({ fixtures: explicitFixtures });
});
afterAll(() => opened.close());

describe("scenarios with every fixture given explicitly", () => {
  it("pass against svc-hub in-process", async () => {
    const results = await runScenarios(reading, opened.target);
    expect(results.map((result) => [result.title, result.outcome, result.message ?? ""])).toEqual(
      reading.map((entry) => [entry.title, "pass", ""]),
    );
  }, 60_000);

  it("against demo.md's tenants alone (no attributes-only engine, acme/dev without visitor ID attributes), skip the scenarios that need more, saying why", async () => {
    const demoMdOnly = await openInProcessTarget({ config: demoMdConfig(), fixtures: demoFixtures });
    try {
      const [engine, otherProfile] = await runScenarios(
        [
          scenario("[MOM-05, DEC-MOM-01] an engine that selects neither"),
          scenario("[PRV-06] a pending deletion is answered again only in its own profile"),
        ],
        demoMdOnly.target,
      );
      expect(engine?.outcome).toBe("skip");
      expect(engine?.message).toStartWith(
        "needs fixtures.engines.attributesOnly: an enabled engine keyed by names that selects only the attributes",
      );
      expect(otherProfile?.outcome).toBe("skip");
      expect(otherProfile?.message).toBe(
        "needs the visitor ID attribute 5120 (fixtures.visitorIdAttributes.email) on fixtures.otherProfile acme/dev too, and GET /v2/visitor/accounts/acme/profiles/dev/ids answered {}",
      );
    } finally {
      await demoMdOnly.close();
    }
  }, 60_000);

  it("follow a fixture that points elsewhere: another disabled engine, another revision target, another file definition", async () => {
    const elsewhere = await openInProcessTarget({
      fixtures: {
        ...explicitFixtures,
        engines: { ...explicitFixtures.engines, disabled: "demo-engine" },
        revision: { ...explicitFixtures.revision, target: "staging" },
        fileDefinition: { ...explicitFixtures.fileDefinition, visitorIdColumn: "mail" },
      },
    });
    try {
      const [disabled, revision, column] = await runScenarios(
        [
          scenario("[MOM-08, DEC-MOM-02]"),
          scenario("[REV-03, REV-04, REV-05]"),
          scenario("[FIL-09, DEC-FIL-03] visitor ID column missing"),
        ],
        elsewhere.target,
      );
      expect(disabled?.outcome).toBe("fail");
      expect(disabled?.message).toStartWith(
        "GET /personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/",
      );
      expect(revision?.outcome).toBe("fail");
      expect(revision?.message).toStartWith(
        "no revision of acme/main is published to target staging (fixtures.revision;",
      );
      // The file names the visitor ID column the fixture gives (mail), which the demo definition does not read.
      expect(column?.outcome).toBe("fail");
      expect(column?.message).toContain("Secondary visitor ID column= mail does not exist");
    } finally {
      await elsewhere.close();
    }
  }, 60_000);
});
