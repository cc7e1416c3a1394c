import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  describeJsonBodyProblem,
  findStructureProblem,
  type JsonBodyProblem,
  locateStructureProblem,
  measureNesting,
  readJsonObjectBody,
} from "./json-body.rules.ts";

/** Reference definitions, written recursively (fine for the small values the properties generate). */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, depthOf(child)), 0);
}

function hasPeriodKey(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(hasPeriodKey);
  return Object.entries(value).some(([key, child]) => key.includes(".") || hasPeriodKey(child));
}

function nested(levels: number, inner = "{}"): string {
  let text = inner;
  for (let level = 1; level < levels; level += 1) text = level % 2 === 0 ? `[${text}]` : `{"k":${text}}`;
  return text;
}

describe("JSON object bodies (DLE-ERR-01, DLE-ERR-06, DLE-ERR-07, DEC-DLE-03)", () => {
  const refused: Array<[string, string, JsonBodyProblem]> = [
    ["an empty body", "", "empty"],
    ["a body of whitespace", " \n\t ", "empty"],
    ["invalid JSON", '{"a":', "invalid-json"],
    ["a trailing comma", '{"a":1,}', "invalid-json"],
    ["two values", "{} {}", "invalid-json"],
    ["an array", "[]", "not-an-object"],
    ["an array of objects", '[{"a":1}]', "not-an-object"],
    ["a string", '"text"', "not-an-object"],
    ["a number", "42", "not-an-object"],
    ["true", "true", "not-an-object"],
    ["null", "null", "not-an-object"],
    ["a key with a period at the top", '{"a.b":1}', "key-with-period"],
    ["a key that is a period", '{".":1}', "key-with-period"],
    ["a key with a period at depth 3", '{"a":{"b":{"c.d":1}}}', "key-with-period"],
    ["a key with a period in an object inside an array", '{"a":[1,{"b":[{"c.d":true}]}]}', "key-with-period"],
    ["65 levels", nested(65), "too-deep"],
    ["100 000 opening brackets", "[".repeat(100_000), "too-deep"],
    ["a million nested objects", '{"a":'.repeat(1_000_000), "too-deep"],
  ];
  for (const [what, text, problem] of refused) {
    it(`refuses ${what}: ${problem}`, () => {
      assert.deepEqual(readJsonObjectBody(text), { ok: false, error: problem });
    });
  }

  const accepted: Array<[string, string]> = [
    ["an empty object", "{}"],
    ["a period in a value", '{"a":"b.c","d":["e.f"]}'],
    ["64 levels", nested(64)],
    ["brackets inside strings, which are not levels", `{"a":"${"[{".repeat(100)}"}`],
    ["escaped quotes inside strings", `{"a":"\\"[[[[","b":"\\\\"}`],
    ["unicode keys and values", '{"é":"✓","😀":"\\u2028"}'],
  ];
  for (const [what, text] of accepted) {
    it(`accepts ${what}`, () => {
      const read = readJsonObjectBody(text);
      assert.ok(read.ok, JSON.stringify(read));
      assert.deepEqual(read.value, JSON.parse(text));
    });
  }

  it("keeps __proto__ and constructor as plain own keys, never as a prototype", () => {
    const read = readJsonObjectBody('{"__proto__":{"polluted":true},"constructor":{"prototype":1}}');
    assert.ok(read.ok);
    assert.equal(Object.getPrototypeOf(read.value), Object.prototype);
    assert.deepEqual(Object.keys(read.value), ["__proto__", "constructor"]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("a key with a period is found without recursion even 64 levels down", () => {
    assert.equal(findStructureProblem(JSON.parse(nested(63, '{"x.y":1}')), { maxDepth: 64 }), "key-with-period");
  });

  it("counts nesting as the top-level object at level 1 and an array as a level", () => {
    assert.equal(measureNesting("{}", 64), 1);
    assert.equal(measureNesting('{"a":[]}', 64), 2);
    assert.equal(measureNesting('{"a":[{"b":1}],"c":{}}', 64), 3);
    assert.equal(measureNesting("[".repeat(1000), 10), 11);
  });

  it("never throws, on any text", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => void readJsonObjectBody(text)));
    fc.assert(fc.property(fc.json({ maxDepth: 6 }), (text) => void readJsonObjectBody(text)));
  });

  it("accepts a JSON value exactly when it is an object without period keys within the depth limit", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.integer({ min: 1, max: 8 }), (value, maxDepth) => {
        const read = readJsonObjectBody(JSON.stringify(value), { maxDepth });
        const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
        const applicable = new Set<JsonBodyProblem>();
        if (!isObject) applicable.add("not-an-object");
        if (depthOf(value) > maxDepth) applicable.add("too-deep");
        if (hasPeriodKey(value)) applicable.add("key-with-period");
        if (!isObject || applicable.has("too-deep")) applicable.delete("key-with-period");
        if (applicable.size === 0) {
          assert.ok(read.ok);
          // Compared as JSON text: the body is what JSON says, and JSON has no -0 (it reads back as 0).
          assert.equal(JSON.stringify(read.value), JSON.stringify(value));
        } else {
          // Which applicable refusal is named first depends on the order of the checks, not on the rule.
          assert.ok(
            !read.ok && applicable.has(read.error),
            `${JSON.stringify(read)} for ${[...applicable].join(", ")}`,
          );
        }
      }),
    );
  });

  it("measures the nesting of any serialised JSON value as its depth", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) =>
        assert.equal(measureNesting(JSON.stringify(value), 100), depthOf(value)),
      ),
    );
  });

  it("says where a key with a period is, as a JSON Pointer (RFC 6901: ~ as ~0, / as ~1)", () => {
    assert.deepEqual(locateStructureProblem({ "a.b": 1 }, { maxDepth: 64 }), { kind: "key-with-period", at: "/a.b" });
    assert.deepEqual(locateStructureProblem({ a: [0, { "x/~.y": 1 }] }, { maxDepth: 64 }), {
      kind: "key-with-period",
      at: "/a/1/x~1~0.y",
    });
    assert.deepEqual(locateStructureProblem({ a: { b: {} } }, { maxDepth: 2 }), { kind: "too-deep", at: "/a/b" });
    assert.equal(locateStructureProblem({ a: ["b.c"] }, { maxDepth: 64 }), null);
  });

  it("the pointer of a key with a period leads, step by step, to a key that holds one", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const located = locateStructureProblem(value, { maxDepth: 64 });
        assert.equal(located?.kind ?? null, hasPeriodKey(value) ? "key-with-period" : null);
        if (!located) return;
        const steps = located.at
          .split("/")
          .slice(1)
          .map((step) => step.replaceAll("~1", "/").replaceAll("~0", "~"));
        const last = steps.pop() as string;
        let node: unknown = value;
        for (const step of steps) node = (node as Record<string, unknown>)[step];
        assert.ok(
          last.includes(".") &&
            node !== null &&
            typeof node === "object" &&
            !Array.isArray(node) &&
            Object.hasOwn(node, last),
        );
      }),
    );
  });

  it("describes each refusal in words, naming no value of the body (a key only by where it is)", () => {
    const described: Array<[string, JsonBodyProblem, string]> = [
      ["", "empty", "the body is empty"],
      ["{", "invalid-json", "the body is not valid JSON"],
      ["[1]", "not-an-object", "the body must be a JSON object, not an array"],
      ["7", "not-an-object", "the body must be a JSON object, not a number"],
      ["false", "not-an-object", "the body must be a JSON object, not a boolean"],
      ["null", "not-an-object", "the body must be a JSON object, not null"],
      ['{"a":[{"secret.value":1}]}', "key-with-period", "no key may hold a period (.), and /a/0/secret.value does"],
      ["[[[]]]", "too-deep", "the body nests objects and arrays deeper than 64 levels"],
    ];
    for (const [text, problem, words] of described) assert.equal(describeJsonBodyProblem(text, problem), words, text);
    assert.equal(
      describeJsonBodyProblem("[[[]]]", "too-deep", { maxDepth: 2 }),
      "the body nests objects and arrays deeper than 2 levels",
    );
  });
});
