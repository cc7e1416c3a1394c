/** Issue 43, point 3 (a tracking plan): the verdict of a profile's schemas on each event as it is stored. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CollectedEvent, EventStore, Violation } from "../ports/events.store.ts";
import type { EventSchemaCheck, TrackingPlans } from "../ports/tracking-plans.port.ts";
import { judgingEventStore } from "./judging-event-store.ts";
import { judgeEvent } from "./verdict.rules.ts";

/** A check that requires one parameter, as a compiled schema would. */
function requires(parameter: string): EventSchemaCheck {
  return (params) =>
    parameter in params
      ? []
      : [{ parameter, path: `/${parameter}`, rule: "required", message: `must have required property '${parameter}'` }];
}

function plansOf(byEvent: Record<string, EventSchemaCheck>, allEvents: EventSchemaCheck | null = null): TrackingPlans {
  return {
    checksOf: (account, profile) =>
      account === "acme" && profile === "main" ? { byEvent: new Map(Object.entries(byEvent)), allEvents } : undefined,
  };
}

function event(name: string | null, data: Record<string, unknown>, profile = "main") {
  return { account: "acme", profile, event: name, data };
}

describe("judgeEvent", () => {
  const plans = plansOf({ purchase: requires("order_id") });

  it("is valid when the parameters fit the schema of the event's name", () => {
    assert.deepEqual(judgeEvent(plans, event("purchase", { order_id: "o-1" })), { verdict: "valid", violations: [] });
  });

  it("is invalid with every violation when they do not", () => {
    const judged = judgeEvent(plans, event("purchase", {}));
    assert.equal(judged.verdict, "invalid");
    assert.deepEqual(
      judged.violations.map((violation) => [violation.parameter, violation.rule]),
      [["order_id", "required"]],
    );
  });

  it("is none for a name without a schema, an event without a name, and a profile without a plan", () => {
    assert.equal(judgeEvent(plans, event("view", {})).verdict, "none");
    assert.equal(judgeEvent(plans, event(null, {})).verdict, "none");
    assert.equal(judgeEvent(plans, event("purchase", {}, "dev")).verdict, "none");
  });

  it("applies the schema for all events to every event, named or not, its violations first", () => {
    const withAll = plansOf({ purchase: requires("order_id") }, requires("page"));
    assert.equal(judgeEvent(withAll, event(null, { page: "/" })).verdict, "valid");
    assert.equal(judgeEvent(withAll, event("view", {})).verdict, "invalid");
    const both = judgeEvent(withAll, event("purchase", {}));
    assert.deepEqual(
      both.violations.map((violation: Violation) => violation.parameter),
      ["page", "order_id"],
    );
  });

  it("matches the event's name exactly", () => {
    assert.equal(judgeEvent(plans, event("Purchase", {})).verdict, "none");
  });
});

describe("judgingEventStore", () => {
  it("stores every appended event with its verdict, and passes the append's mark on", async () => {
    const appended: Array<{ events: readonly CollectedEvent[]; mark: unknown }> = [];
    const store = { append: async (events, options) => void appended.push({ events, mark: options?.mark }) } as Pick<
      EventStore,
      "append"
    > as EventStore;
    const judging = judgingEventStore(store, plansOf({ purchase: requires("order_id") }));
    const base = {
      visitorId: "v1",
      visitorIdSource: "new",
      thirdPartyVisitorId: null,
      firstPartyVisitorId: null,
      datasource: null,
      traceId: null,
      receivedAt: 1,
    } as const;
    await judging.append(
      [
        { ...base, ...event("purchase", { order_id: "o-1" }) },
        { ...base, ...event("purchase", {}) },
        { ...base, ...event("view", {}) },
      ],
      { mark: { key: "k", value: "v" } },
    );
    assert.deepEqual(
      appended[0]?.events.map((stored) => stored.verdict),
      ["valid", "invalid", "none"],
    );
    assert.equal(appended[0]?.events[1]?.violations?.[0]?.rule, "required");
    assert.deepEqual(appended[0]?.mark, { key: "k", value: "v" });
  });
});
