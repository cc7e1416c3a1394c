/**
 * The scenarios name the tenants they use through the fixtures, never svc-hub's demo names: run in-process
 * against svc-hub configured with other names (no profile called main anywhere), the collection scenarios pass,
 * and the one check of DEC-COL-01's default (svc_profile absent means main) is skipped, saying why.
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
import { demoFixtures } from "./target.ts";

/** The demo configuration with its profiles renamed: acme/main is acme/web, acme/dev acme/stage, globex/main globex/eu. */
function renameDemoProfiles() {
  const demo = JSON.parse(readFileSync(demoConfigPath, "utf8")) as {
    accounts: Array<{ name: string; profiles: Array<{ name: string }> }>;
    revisions?: Array<{ account: string; profile: string }>;
  };
  const names: Record<string, Record<string, string>> = { acme: { main: "web", dev: "stage" }, globex: { main: "eu" } };
  for (const account of demo.accounts)
    for (const profile of account.profiles) profile.name = names[account.name]?.[profile.name] ?? profile.name;
  for (const revision of demo.revisions ?? [])
    revision.profile = names[revision.account]?.[revision.profile] ?? revision.profile;
  const parsed = parseConfigText(JSON.stringify(demo), "json", demoConfigPath);
  if (!parsed.ok) throw new Error(parsed.error.format());
  return parsed.value;
}

let opened: InProcessService;
beforeAll(async () => {
  opened = await openInProcessTarget({
    config: renameDemoProfiles(),
    fixtures: { ...demoFixtures, profile: "web", otherProfile: "stage", otherAccountProfile: "eu" },
  });
});
afterAll(() => opened.close());

describe("against tenants without a profile named main", () => {
  it("every collection scenario names svc_profile and passes; only the check of the default profile is skipped, saying why", async () => {
    const collect = allScenarios.filter((scenario) => scenario.area === "collect");
    const results = await runScenarios(collect, opened.target);
    const defaultCheck = "[COL-03, DEC-COL-01] without svc_profile the event is stored for the profile main";
    expect(
      results.filter((result) => result.outcome !== "pass").map((result) => [result.title, result.outcome]),
    ).toEqual([[defaultCheck, "skip"]]);
    expect(results.find((result) => result.title === defaultCheck)?.message).toBe(
      "needs an account with a profile named main (DEC-COL-01: svc_profile absent means main), and none of the fixtures' profiles " +
        "(fixtures.profile web, fixtures.otherProfile stage, fixtures.otherAccountProfile eu) is main",
    );
  }, 60_000);
});
