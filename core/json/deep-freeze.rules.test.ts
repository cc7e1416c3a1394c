import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { deepFreeze } from "./deep-freeze.rules.ts";

/** Every object and array reachable from `value`. */
function everyObject(value: unknown, found: object[] = []): object[] {
  if (value === null || typeof value !== "object") return found;
  found.push(value);
  for (const child of Object.values(value)) everyObject(child, found);
  return found;
}

describe("deepFreeze (tenancy records shared between readers, issue 12)", () => {
  it("freezes every object and array inside a JSON value, and changes nothing in it", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const before = JSON.stringify(value);
        assert.equal(deepFreeze(value), value);
        assert.equal(JSON.stringify(value), before);
        assert.ok(everyObject(value).every((object) => Object.isFrozen(object)));
      }),
    );
  });

  it("makes a change through any reference throw", () => {
    const record = deepFreeze({ config: { engines: [{ id: "e", allowedDomains: ["a.example"] }] } });
    assert.throws(() => ((record.config.engines[0] as { id: string }).id = "other"), TypeError);
    const engine = record.config.engines[0];
    assert.ok(engine);
    assert.throws(() => (engine.allowedDomains as string[]).push("b.example"), TypeError);
    assert.equal(record.config.engines[0]?.id, "e");
  });

  it("walks nesting deeper than the call stack allows", () => {
    let deep: { next?: unknown } = {};
    const top = deep;
    for (let level = 0; level < 200_000; level += 1) deep = deep.next = {};
    deepFreeze(top);
    assert.ok(Object.isFrozen(deep));
  });

  it("freezes a shared object and a cycle without looping", () => {
    const shared = { n: 1 };
    const cyclic: { self?: unknown; a: object; b: object } = { a: shared, b: shared };
    cyclic.self = cyclic;
    deepFreeze(cyclic);
    assert.ok(Object.isFrozen(shared) && Object.isFrozen(cyclic));
  });
});
