/** Issue 43, point 5 (and the request journal's finding): matching on headers and on a body JSON path. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { bodyMatchesJson, headersMatch, type JsonPath, readJsonPath, sameJson } from "./request-matcher.rules.ts";

function path(text: string): JsonPath {
  const read = readJsonPath(text);
  assert.ok(read.ok, text);
  return read.value;
}

describe("a JSON path", () => {
  it("reads .name, ['name'], [\"name\"] and [index] steps", () => {
    assert.deepEqual(path("$").steps, []);
    assert.deepEqual(path("$.items[0].sku").steps, ["items", 0, "sku"]);
    assert.deepEqual(path('$[\'svc event\']["a\\"b"]').steps, ["svc event", 'a"b']);
  });

  it("refuses what does not name one value, with a reason", () => {
    for (const text of ["items", "$.items[*]", "$..sku", "$.", "$[?(@.a)]", "$.a[1:2]"]) {
      const read = readJsonPath(text);
      assert.equal(read.ok, false, text);
    }
  });

  it("never throws on any text", () => {
    fc.assert(fc.property(fc.string(), (text) => void readJsonPath(text)));
  });
});

describe("a body JSON match", () => {
  const body = JSON.stringify({ items: [{ sku: "A1", qty: 2, tags: { b: 1, a: [true] } }], empty: null });
  it("matches the value at the path, objects whatever their members' order", () => {
    assert.equal(bodyMatchesJson(body, { path: path("$.items[0].sku"), equals: "A1" }), true);
    assert.equal(bodyMatchesJson(body, { path: path("$.items[0].qty"), equals: 2 }), true);
    assert.equal(bodyMatchesJson(body, { path: path("$.items[0].qty"), equals: "2" }), false);
    assert.equal(bodyMatchesJson(body, { path: path("$.items[0].tags"), equals: { a: [true], b: 1 } }), true);
    assert.equal(bodyMatchesJson(body, { path: path("$.items[1]") }), false);
    assert.equal(bodyMatchesJson(body, { path: path("$.empty") }), true, "without equals: any value, null too");
  });

  it("does not match a body that is not JSON, or none", () => {
    assert.equal(bodyMatchesJson("svc_event=view", { path: path("$") }), false);
    assert.equal(bodyMatchesJson(null, { path: path("$") }), false);
  });

  it("sameJson is symmetric on any JSON", () => {
    fc.assert(fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => sameJson(a, b) === sameJson(b, a)));
  });
});

describe("a header match", () => {
  it("needs every header named, with exactly its value, the name in any case", () => {
    // As fetch's Headers answers: names in any case.
    const headers = new Map([
      ["x-test-case", "retry-1"],
      ["accept", "application/json"],
    ]);
    const of = (name: string) => headers.get(name.toLowerCase()) ?? null;
    assert.equal(headersMatch({ "x-test-case": "retry-1" }, of), true);
    assert.equal(headersMatch({ "X-TEST-CASE": "retry-1", Accept: "application/json" }, of), true);
    assert.equal(headersMatch({ "x-test-case": "retry-2" }, of), false);
    assert.equal(headersMatch({ "x-missing": "" }, of), false);
  });
});
