/**
 * Issue 43's tracking plan as the tests use it, on the demo's acme/main: the HTTP routes' tests, the svc-hub
 * command's and the console's browser suite send good and bad events against it.
 */
import type { ServiceConfig } from "../../core/config/index.ts";

/** The tracking plan of acme/main in these tests (docs/configuration.md shows the same). */
export const purchasePlan = {
  allEvents: { properties: { page: { type: "string" } } },
  events: {
    purchase: {
      type: "object",
      required: ["order_id"],
      properties: { order_id: { type: "string", pattern: "^O-[0-9]+$" }, total: { type: "number", minimum: 0 } },
    },
  },
};

/** A configuration with `plan` on acme/main (the demo's, read by the caller). */
export function withPlanOnAcmeMain(config: ServiceConfig, plan: unknown = purchasePlan): ServiceConfig {
  return {
    ...config,
    accounts: config.accounts.map((account) => ({
      ...account,
      profiles: account.profiles.map((profile) =>
        account.name === "acme" && profile.name === "main"
          ? { ...profile, trackingPlan: plan as NonNullable<typeof profile.trackingPlan> }
          : profile,
      ),
    })),
  };
}

/** The text of a JSON configuration file (the demo's, read by the caller) with `plan` on acme/main. */
export function configTextWithPlanOnAcmeMain(jsonText: string, plan: unknown = purchasePlan): string {
  const file = JSON.parse(jsonText) as { accounts: Array<{ name: string; profiles: Array<Record<string, unknown>> }> };
  for (const account of file.accounts)
    for (const profile of account.profiles)
      if (account.name === "acme" && profile.name === "main") profile.trackingPlan = plan;
  return JSON.stringify(file, null, 2);
}
