/**
 * Issue 33: fault injection (a FaultPlan that answers the next N matching requests) and the redaction of the
 * request journal's query (the journal itself: request-journal.test.ts).
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { accountOfRequest } from "./fault-plan.rules.ts";
import { FaultPlan, type FaultSpec, validateFaultInput } from "./index.ts";
import { redactQuery } from "./request-redaction.rules.ts";

/** The test of a path the host would compile from a fault's pattern (adapters/http/path-pattern.ts does). */
const pathIs = (expected: string) => (path: string) => path === expected;

function spec(input: Record<string, unknown>): FaultSpec {
  const checked = validateFaultInput(input);
  assert.ok(checked.ok, JSON.stringify(checked));
  return checked.value;
}

describe("issue 33: a fault is checked field by field", () => {
  it("takes a status fault with defaults: any method, any account, once", () => {
    assert.deepEqual(spec({ path: "/v1/login", status: 503 }), {
      method: null,
      path: "/v1/login",
      account: null,
      times: 1,
      status: 503,
      body: null,
      headers: {},
      delayMs: 0,
      drop: false,
    });
  });

  const refusals: Array<[string, Record<string, unknown>, string]> = [
    ["an unknown field", { path: "/event", status: 500, colour: "red" }, "colour"],
    ["a method that is not one", { path: "/event", status: 500, method: "FETCH" }, "method"],
    ["a path without a leading slash", { path: "event", status: 500 }, "path"],
    ["a path with a query", { path: "/event?x=1", status: 500 }, "path"],
    ["an /admin path (never faulted)", { path: "/admin/reset", status: 500 }, "path"],
    ["times of 0", { path: "/event", status: 500, times: 0 }, "times"],
    ["a status out of 200..599", { path: "/event", status: 600 }, "status"],
    ["a 1xx status, not a final answer", { path: "/event", status: 100 }, "status"],
    ["a delay over 60 s", { path: "/event", delayMs: 60_001 }, "delayMs"],
    ["a drop with a status", { path: "/event", status: 500, drop: true }, "drop"],
    ["a body without a status", { path: "/event", body: "x", delayMs: 10 }, "status"],
    ["a fault that does nothing", { path: "/event" }, "status"],
    ["a header value on two lines", { path: "/event", status: 500, headers: { a: "b\nc" } }, "headers"],
  ];
  for (const [what, input, field] of refusals) {
    it(`refuses ${what} with 400 1400 naming ${field}`, () => {
      const checked = validateFaultInput(input);
      assert.equal(checked.ok, false);
      if (checked.ok) return;
      assert.equal(checked.error.status, 400);
      assert.equal(checked.error.returnCode, 1400);
      assert.match(checked.error.message, new RegExp(`Invalid ${field}:`));
    });
  }

  it("never throws on any JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        validateFaultInput(value);
      }),
    );
  });
});

describe("issue 33: the account of a request", () => {
  it("reads the account from the path, /dle/ or /event's svc_account", () => {
    assert.equal(accountOfRequest("/v1/dle/accounts/acme/profiles/main/datalayers/x", ""), "acme");
    assert.equal(accountOfRequest("/v1/accounts/globex/main/revisions", ""), "globex");
    assert.equal(accountOfRequest("/dle/acme/main/x.json", ""), "acme");
    assert.equal(accountOfRequest("/event", "svc_account=acme&svc_profile=main"), "acme");
    assert.equal(accountOfRequest("/v1/login", "username=a"), null);
  });
});

describe("issue 33: a FaultPlan answers the next N matching requests", () => {
  it("counts a fault down and removes it once spent", () => {
    const plan = new FaultPlan();
    const fault = plan.add(spec({ method: "POST", path: "/v1/login", status: 503, times: 2 }), pathIs("/v1/login"));
    assert.equal(fault.id, "f1");
    assert.equal(fault.remaining, 2);
    assert.equal(plan.take("GET", "/v1/login", ""), null, "another method");
    assert.equal(plan.take("POST", "/v1/login", "")?.remaining, 1);
    assert.equal(plan.take("POST", "/v1/login", "")?.remaining, 0);
    assert.equal(plan.take("POST", "/v1/login", ""), null);
    assert.deepEqual(plan.list(), []);
  });

  it("limits a fault to an account", () => {
    const plan = new FaultPlan();
    plan.add(spec({ path: "/event", account: "acme", status: 500 }), pathIs("/event"));
    assert.equal(plan.take("GET", "/event", "svc_account=globex"), null);
    assert.equal(plan.take("GET", "/event", "svc_account=acme")?.id, "f1");
  });

  it("answers with the oldest matching fault; lists, removes and clears", () => {
    const plan = new FaultPlan();
    plan.add(spec({ path: "/v2/*", status: 500 }), (path) => path.startsWith("/v2/"));
    plan.add(spec({ path: "/v2/auth", status: 429 }), pathIs("/v2/auth"));
    assert.deepEqual(
      plan.list().map((fault) => fault.id),
      ["f1", "f2"],
    );
    assert.equal(plan.take("POST", "/v2/auth", "")?.status, 500);
    assert.equal(plan.remove("f2"), true);
    assert.equal(plan.remove("f2"), false);
    plan.add(spec({ path: "/event", drop: true }), pathIs("/event"));
    plan.clear();
    assert.equal(plan.take("GET", "/event", ""), null);
    assert.equal(plan.add(spec({ path: "/event", drop: true }), pathIs("/event")).id, "f4", "ids keep counting up");
  });
});

describe("issue 33: the request journal's query", () => {
  it("redacts every parameter named like a secret", () => {
    assert.deepEqual(redactQuery("api_key=1&apiKey=2&access_token=3&utk=4&q=5&q=6"), {
      api_key: "[redacted]",
      apiKey: "[redacted]",
      access_token: "[redacted]",
      utk: "[redacted]",
      q: ["5", "6"],
    });
  });
});
