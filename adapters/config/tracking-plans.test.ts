/**
 * Issue 43, point 3 (a tracking plan): the configuration's plans compiled with ajv when it is loaded; a schema
 * that does not compile is refused naming its account, profile and event; violations as the events show them.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceConfig } from "../../core/config/index.ts";
import { judgeEvent } from "../../core/tracking-plan/index.ts";
import { modulesLoadedAfter } from "../../testing/modules-loaded.ts";
import { parseConfigText } from "./config.loader.ts";
import { loadPlanCompiler, trackingPlansOf } from "./tracking-plans.ts";

// parseConfigText compiles tracking plans once ajv is loaded (loadConfigFile loads it).
await loadPlanCompiler();

function configWith(trackingPlan: unknown): string {
  return JSON.stringify({ accounts: [{ name: "acme", profiles: [{ name: "dev" }, { name: "main", trackingPlan }] }] });
}

function loaded(trackingPlan: unknown): ServiceConfig {
  const result = parseConfigText(configWith(trackingPlan), "json", "svc.config.json");
  if (!result.ok) throw new Error(result.error.format());
  return result.value;
}

const purchasePlan = {
  allEvents: { type: "object", required: ["page"] },
  events: {
    purchase: {
      type: "object",
      required: ["order_id"],
      properties: {
        order_id: { type: "string", pattern: "^O-[0-9]+$" },
        total: { type: "number", minimum: 0 },
        items: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } },
      },
    },
    "a/b~c": { required: ["x"] },
  },
};

function judge(config: ServiceConfig, name: string | null, data: Record<string, unknown>, profile = "main") {
  const plans = trackingPlansOf(config);
  if (!plans.ok || plans.value === null) throw new Error("expected compiled plans");
  return judgeEvent(plans.value, { account: "acme", profile, event: name, data });
}

describe("a tracking plan in the configuration", () => {
  test("is kept on its profile, with no plan on the others", () => {
    const config = loaded(purchasePlan);
    const [dev, main] = config.accounts[0]?.profiles ?? [];
    expect(dev?.trackingPlan).toBeUndefined();
    expect(main?.trackingPlan).toEqual(purchasePlan);
  });

  test("judges an event that fits valid, and one that does not invalid with each violation", () => {
    const config = loaded(purchasePlan);
    expect(judge(config, "purchase", { page: "/cart", order_id: "O-1", total: 3 })).toEqual({
      verdict: "valid",
      violations: [],
    });
    const bad = judge(config, "purchase", { order_id: "X", total: "3", items: [{ sku: 7 }] });
    expect(bad.verdict).toBe("invalid");
    expect(bad.violations).toEqual([
      { parameter: "page", path: "/page", rule: "required", message: "must have required property 'page'" },
      {
        parameter: "order_id",
        path: "/order_id",
        rule: "pattern",
        value: "X",
        message: 'must match pattern "^O-[0-9]+$"',
      },
      { parameter: "total", path: "/total", rule: "type", value: "3", message: "must be number" },
      { parameter: "items", path: "/items/0/sku", rule: "type", value: 7, message: "must be string" },
    ]);
  });

  test("names a parameter with / or ~ in its name as a JSON Pointer does", () => {
    const bad = judge(loaded(purchasePlan), "a/b~c", { page: "/", x: 1 });
    expect(bad.verdict).toBe("valid");
    const config = loaded({ events: { e: { properties: { "a/b": { type: "string" } } } } });
    expect(judge(config, "e", { "a/b": 1 }).violations).toEqual([
      { parameter: "a/b", path: "/a~1b", rule: "type", value: 1, message: "must be string" },
    ]);
  });

  test("names an unknown parameter that additionalProperties refuses, with its value", () => {
    const config = loaded({ events: { e: { properties: { a: true }, additionalProperties: false } } });
    expect(judge(config, "e", { a: 1, b: [2] }).violations).toEqual([
      {
        parameter: "b",
        path: "/b",
        rule: "additionalProperties",
        value: [2],
        message: "must NOT have additional properties",
      },
    ]);
  });

  test("is none for an event without a schema and for a profile without a plan", () => {
    const config = loaded({ events: { purchase: { required: ["order_id"] } } });
    expect(judge(config, "view", {}).verdict).toBe("none");
    expect(judge(config, "purchase", {}, "dev").verdict).toBe("none");
  });

  test("treats format as an annotation, as draft 2020-12 does by default", () => {
    const config = loaded({ events: { e: { properties: { mail: { type: "string", format: "email" } } } } });
    expect(judge(config, "e", { mail: "not an address" }).verdict).toBe("valid");
  });

  test("a configuration without a plan compiles nothing", () => {
    const result = trackingPlansOf(loaded(undefined));
    expect(result).toEqual({ ok: true, value: null });
  });
});

describe("a schema that does not compile is a configuration error", () => {
  function refusal(trackingPlan: unknown): string[] {
    const result = parseConfigText(configWith(trackingPlan), "json", "svc.config.json");
    if (result.ok) throw new Error("expected the configuration to be refused");
    return result.error.problems.map((problem) => `${problem.path}: ${problem.message}`);
  }

  test("naming the account, profile and event, and what ajv found", () => {
    const problems = refusal({
      events: { purchase: { type: "objekt" }, view: { requird: ["x"] }, ok: { type: "object" } },
      allEvents: { properties: { a: { $ref: "#/$defs/missing" } } },
    });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toStartWith(
      '/accounts/0/profiles/1/trackingPlan/events/purchase: account "acme", profile "main", event "purchase": not a JSON Schema ajv can compile: schema is invalid',
    );
    expect(problems[1]).toStartWith(
      '/accounts/0/profiles/1/trackingPlan/events/view: account "acme", profile "main", event "view": not a JSON Schema ajv can compile: strict mode: unknown keyword: "requird"',
    );
    expect(problems[2]).toContain('/trackingPlan/allEvents: account "acme", profile "main", all events (allEvents):');
    expect(problems[2]).toContain("can't resolve reference #/$defs/missing");
  });

  test("a schema that is neither an object nor a boolean is refused by the file's own schema", () => {
    expect(refusal({ events: { purchase: "string" } })).toEqual([
      '/accounts/0/profiles/1/trackingPlan/events/purchase: must be a JSON Schema: an object, or true or false (found "string")',
    ]);
  });
});

describe("ajv is loaded only by a configuration with a plan (the server's start is measured)", () => {
  /** Whether a fresh process that loads this configuration file (loadConfigFile, as a start does) has loaded ajv. */
  function loadsAjv(text: string): boolean {
    const dir = mkdtempSync(join(tmpdir(), "svc-plan-"));
    try {
      const path = join(dir, "svc.config.json");
      writeFileSync(path, text);
      const script = `const { loadConfigFile } = await import(${JSON.stringify(`${import.meta.dir}/config.loader.ts`)});
        const result = await loadConfigFile(${JSON.stringify(path)});
        if (!result.ok) throw new Error(result.error.format());`;
      return modulesLoadedAfter(script, "/node_modules/ajv/") > 0;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("not by one without, and by one with", () => {
    expect(loadsAjv(configWith(undefined))).toBe(false);
    expect(loadsAjv(configWith(purchasePlan))).toBe(true);
  });
});
