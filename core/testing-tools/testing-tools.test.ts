/**
 * Issue 33: fault injection (a FaultPlan that answers the next N matching requests) and the redaction of the
 * request journal's query (the journal itself: request-journal.test.ts).
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { accountOfRequest, firstQueryValue, splitQueryString } from "./fault-plan.rules.ts";
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
      probability: 1,
      seed: null,
      malformed: null,
      trickleBytesPerSecond: null,
      matchHeaders: {},
      matchJsonPath: null,
    });
  });

  it("issue 43: takes a probability with a seed, a malformation, a trickle, header and body matching", () => {
    const fields = {
      probability: 0.5,
      seed: 42,
      malformed: "cut-body",
      trickleBytesPerSecond: 100,
      matchHeaders: { "x-test": "1" },
      matchJsonPath: { path: "$.items[0].sku", equals: "A1" },
    };
    assert.deepEqual(spec({ path: "/event", ...fields }), {
      ...spec({ path: "/event", delayMs: 1 }),
      delayMs: 0,
      ...fields,
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
    ["a probability over 1", { path: "/event", status: 500, probability: 1.5 }, "probability"],
    ["a seed that is not whole", { path: "/event", status: 500, seed: 1.5 }, "seed"],
    ["an unknown malformation", { path: "/event", malformed: "garbled" }, "malformed"],
    ["a trickle of 0 bytes per second", { path: "/event", trickleBytesPerSecond: 0 }, "trickleBytesPerSecond"],
    ["a drop with a malformation", { path: "/event", drop: true, malformed: "cut-body" }, "drop"],
    [
      "a header to match that is not a name",
      { path: "/event", status: 500, matchHeaders: { "a b": "1" } },
      "matchHeaders",
    ],
    [
      "a JSON path with a wildcard",
      { path: "/event", status: 500, matchJsonPath: { path: "$.items[*]" } },
      "matchJsonPath/path",
    ],
    [
      "a JSON match's unknown field",
      { path: "/event", status: 500, matchJsonPath: { path: "$", is: 1 } },
      "matchJsonPath/is",
    ],
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

describe("issue 44: a query parameter found without decoding the others", () => {
  it("answers what the first pair of that name holds once the whole query is split and decoded", () => {
    const name = fc.constantFrom("svc_account", "svc%5Faccount", "svc%5faccount", "svc+account", "%E0%A4%A", "a", "");
    const value = fc.option(fc.stringMatching(/^[a-z%+=0-9AEF]{0,6}$/), { nil: undefined });
    const part = fc.tuple(name, value).map(([n, v]) => (v === undefined ? n : `${n}=${v}`));
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), (parts) => {
        const query = parts.join("&");
        const wanted = splitQueryString(query).find(([name]) => name === "svc_account")?.[1];
        assert.equal(firstQueryValue(query, "svc_account"), wanted);
      }),
    );
    assert.equal(firstQueryValue("svc%5Faccount=a%20b&svc_account=c", "svc_account"), "a b");
    assert.equal(firstQueryValue("x=1&svc_account", "svc_account"), "");
    assert.equal(firstQueryValue("svc_account=%E0%A4%A", "svc_account"), "%E0%A4%A");
  });
});

describe("issue 33: a FaultPlan answers the next N matching requests", () => {
  it("counts a fault down and removes it once spent", () => {
    const plan = new FaultPlan({ randomUnit: () => 0 });
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
    const plan = new FaultPlan({ randomUnit: () => 0 });
    plan.add(spec({ path: "/event", account: "acme", status: 500 }), pathIs("/event"));
    assert.equal(plan.take("GET", "/event", "svc_account=globex"), null);
    assert.equal(plan.take("GET", "/event", "svc_account=acme")?.id, "f1");
  });

  it("answers with the oldest matching fault; lists, removes and clears", () => {
    const plan = new FaultPlan({ randomUnit: () => 0 });
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

describe("issue 43: a fault's probability, and matching on headers and on the body", () => {
  const answered = (plan: FaultPlan, requests: number) =>
    Array.from({ length: requests }, () => (plan.take("POST", "/event", "") === null ? "." : "F")).join("");

  it("with a seed, fails the same requests in every run, about as often as asked, never drawing from the host", () => {
    const host = { randomUnit: () => assert.fail("the host's randomness is not drawn with a seed") };
    const runs = [1, 2].map(() => {
      const plan = new FaultPlan(host);
      plan.add(spec({ path: "/event", status: 503, probability: 0.5, seed: 7, times: 1000 }), pathIs("/event"));
      return answered(plan, 200);
    });
    assert.equal(runs[0], runs[1]);
    const failed = [...(runs[0] ?? "")].filter((mark) => mark === "F").length;
    assert.ok(failed > 60 && failed < 140, `${failed} of 200`);
    const other = new FaultPlan(host);
    other.add(spec({ path: "/event", status: 503, probability: 0.5, seed: 8, times: 1000 }), pathIs("/event"));
    assert.notEqual(answered(other, 200), runs[0], "another seed, another sequence");
  });

  it("without a seed, draws from the host; a request passed by is not counted", () => {
    const draws = [0.7, 0.2, 0.9, 0.1];
    const plan = new FaultPlan({ randomUnit: () => draws.shift() ?? 0 });
    plan.add(spec({ path: "/event", status: 503, probability: 0.5, times: 2 }), pathIs("/event"));
    assert.equal(answered(plan, 4), ".F.F");
    assert.deepEqual(plan.list(), []);
  });

  it("probability 0 never answers, 1 always", () => {
    const plan = new FaultPlan({ randomUnit: () => 0 });
    plan.add(spec({ path: "/event", status: 503, probability: 0, times: 5 }), pathIs("/event"));
    assert.equal(answered(plan, 3), "...");
  });

  it("matches a request's headers, in any case, and a value at a JSON path of its body", () => {
    const plan = new FaultPlan({ randomUnit: () => 0 });
    plan.add(
      spec({
        path: "/event",
        status: 500,
        times: 9,
        matchHeaders: { "X-Test": "a" },
        matchJsonPath: { path: "$.sku", equals: "A1" },
      }),
      pathIs("/event"),
    );
    const headers = new Map([["x-test", "a"]]);
    const parts = (body: string | null, header = (name: string) => headers.get(name.toLowerCase()) ?? null) => ({
      header,
      body,
    });
    assert.equal(plan.readsBodies, true);
    assert.equal(plan.take("POST", "/event", "", parts('{"sku":"A1"}'))?.id, "f1");
    assert.equal(plan.take("POST", "/event", "", parts('{"sku":"B2"}')), null);
    assert.equal(plan.take("POST", "/event", "", parts("sku=A1")), null, "a body that is not JSON");
    assert.equal(
      plan.take(
        "POST",
        "/event",
        "",
        parts('{"sku":"A1"}', () => null),
      ),
      null,
      "without the header",
    );
    assert.equal(plan.take("POST", "/event", ""), null, "nothing read of the request");
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
