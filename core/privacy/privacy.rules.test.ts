import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { assertInvalidRequest } from "../../testing/errors/refusal.ts";
import { customerIdAttribute, emailIdAttribute } from "../../testing/fixtures.ts";
import type { ProfileConfig } from "../config/config.model.ts";
import { normaliseVisitorIdValue } from "../visitors/visitor-id.rules.ts";
import {
  knownVisitorIdOf,
  readPrettyName,
  readVisitorLookup,
  refuseQueryParameters,
  transactionAnswer,
  valueHashInput,
  visitorIdsOfGroup,
} from "./privacy.rules.ts";

const config: ProfileConfig = {
  name: "main",
  visitorIdAttributes: [emailIdAttribute, customerIdAttribute],
  attributes: [{ id: 5201, name: "Lifetime event count", type: "number", pii: false, enrichments: [] }],
  audiences: [],
  engines: [],
  fileDefinitions: [],
};

describe("privacy parameters (PRV-02..05, DEC-PRV-02)", () => {
  it("[PRV-02, PRV-04, DEC-PRV-05] a visitor ID attribute and any non-empty value, special characters kept as given, white space around it removed", () => {
    assert.deepEqual(readVisitorLookup(config, "5120", "ann+tag@example.com"), {
      ok: true,
      value: { attributeId: 5120, value: "ann+tag@example.com" },
    });
    assert.deepEqual(readVisitorLookup(config, "5121", " ü/?&=%20 "), {
      ok: true,
      value: { attributeId: 5121, value: "ü/?&=%20" },
    });
    assert.deepEqual(readVisitorLookup(config, "5120", "\t\u00a0Ann@Example.com \u2003 x\u0085"), {
      ok: true,
      value: { attributeId: 5120, value: "Ann@Example.com \u2003 x" },
    });
    // U+FEFF is not White_Space (String.prototype.trim would remove it).
    assert.deepEqual(readVisitorLookup(config, "5120", "\ufeffann@example.com"), {
      ok: true,
      value: { attributeId: 5120, value: "\ufeffann@example.com" },
    });
  });

  it("[DEC-PRV-02] attributeId missing, not numeric, or not a visitor ID attribute of the profile is 400 1400", () => {
    const refused: Array<[string | undefined, RegExp]> = [
      [undefined, /^attributeId is missing$/],
      ["", /^attributeId must be the number of a visitor ID attribute, not ""$/],
      ["email", /^attributeId must be the number of a visitor ID attribute, not "email"$/],
      ["5120.0", /not "5120\.0"$/],
      ["-5120", /not "-5120"$/],
      ["1e3", /not "1e3"$/],
      ["5201", /^attribute 5201 is not a visitor ID attribute of this profile \(those are 5120, 5121\)$/],
      ["99999", /^attribute 99999 is not a visitor ID attribute of this profile/],
    ];
    for (const [id, reason] of refused)
      assertInvalidRequest(readVisitorLookup(config, id, "ann@example.com"), reason, `attributeId ${id}`);
    assertInvalidRequest(readVisitorLookup({ ...config, visitorIdAttributes: [] }, "5120", "a"), /\(it has none\)$/);
  });

  it("[DEC-PRV-02, DEC-PRV-05] attributeValue missing, empty or only white space is 400 1400", () => {
    assertInvalidRequest(readVisitorLookup(config, "5120", undefined), /^attributeValue is missing$/);
    assertInvalidRequest(readVisitorLookup(config, "5120", ""), /^attributeValue is empty$/);
    assertInvalidRequest(readVisitorLookup(config, "5120", " \t\u3000\n"), /^attributeValue is only white space$/);
  });

  it("[PRV-03, DEC-PRV-01] prettyName is true or false in any case, false when absent; anything else is 400 1400", () => {
    assert.deepEqual(readPrettyName(undefined), { ok: true, value: false });
    assert.deepEqual(readPrettyName("TRUE"), { ok: true, value: true });
    assert.deepEqual(readPrettyName("false"), { ok: true, value: false });
    for (const raw of ["", "yes", "1", "truee"])
      assertInvalidRequest(readPrettyName(raw), new RegExp(`^prettyName must be true or false, not "${raw}"$`), raw);
  });

  it("[PRV-05, DEC-PRV-02] a delete with attributeId or attributeValue in the query string is 400 1400; other query parameters are ignored", () => {
    assertInvalidRequest(
      refuseQueryParameters(["attributeValue"]),
      /^attributeValue belongs in the form body of a deletion, not in the query string$/,
    );
    assertInvalidRequest(refuseQueryParameters(["cb", "attributeId"]), /^attributeId belongs in the form body/);
    assert.deepEqual(refuseQueryParameters(["cb", "_"]), { ok: true, value: undefined });
  });

  it("[PRV-09] the lookup names the known visitor ID of the account and profile", () => {
    assert.equal(
      knownVisitorIdOf("acme", "main", { attributeId: 5120, value: "ann@example.com" }),
      "__acme_main__5120_ann@example.com__",
    );
  });

  it("[PRV-09, DEC-PRV-04] a deleted group is known by the lookup's value, its members' known visitor IDs and its profile's captured values, each once", () => {
    const members = [
      "anon-1",
      "__acme_main__5121_C-77__",
      "__acme_main__5120_ann@example.com__",
      "__acme_main__5120_ann+alias@example.com__",
      "__acme_dev__5120_dev@example.com__",
      "__acme_main__x_not-an-attribute__",
    ];
    const captured = { "5120": "ann@example.com", "5121": "C-78", x: "ignored", "5122": "" };
    assert.deepEqual(
      visitorIdsOfGroup("acme", "main", { lookup: { attributeId: 5121, value: "C-77" }, members, captured }),
      [
        { attributeId: 5121, value: "C-77" },
        { attributeId: 5120, value: "ann@example.com" },
        { attributeId: 5120, value: "ann+alias@example.com" },
        { attributeId: 5121, value: "C-78" },
      ],
    );
    // A visitor nobody knows: only the value the deletion names.
    assert.deepEqual(
      visitorIdsOfGroup("acme", "main", {
        lookup: { attributeId: 5120, value: "ann@example.com" },
        members: [],
        captured: {},
      }),
      [{ attributeId: 5120, value: "ann@example.com" }],
    );
  });

  it("[PRV-09, DEC-PRV-05] the group's values start with the lookup's, hold no duplicate, and include every known member of this account and profile, by its normalised value", () => {
    const lookupOf = fc.record({ attributeId: fc.integer({ min: 1, max: 9_999 }), value: fc.string({ minLength: 1 }) });
    fc.assert(
      fc.property(
        lookupOf,
        fc.array(fc.oneof(lookupOf, fc.string())),
        fc.dictionary(fc.string(), fc.string()),
        (lookup, raw, captured) => {
          const members = raw.map((member) =>
            typeof member === "string" ? member : knownVisitorIdOf("acme", "main", member),
          );
          const values = visitorIdsOfGroup("acme", "main", { lookup, members, captured });
          assert.deepEqual(values[0], { attributeId: lookup.attributeId, value: lookup.value });
          assert.equal(new Set(values.map((value) => JSON.stringify(value))).size, values.length);
          for (const member of raw) {
            if (typeof member === "string" || normaliseVisitorIdValue(member.value) === "") continue;
            assert.ok(
              values.some(
                (value) =>
                  value.attributeId === member.attributeId && value.value === normaliseVisitorIdValue(member.value),
              ),
            );
          }
        },
      ),
    );
  });

  it("[PRV-07] the transaction answer is one pair: id to state", () => {
    assert.deepEqual(transactionAnswer("abc", "PENDING"), { abc: "PENDING" });
  });

  it("validation never throws, and accepts exactly the configured ids with a value that is not empty once normalised, which it answers", () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(" ", "\t", "\u00a0", "\u0085", "a", "@") }));
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), fc.option(text, { nil: undefined }), (id, value) => {
        const result = readVisitorLookup(config, id, value);
        const expected =
          id !== undefined &&
          /^\d{1,15}$/.test(id) &&
          [5120, 5121].includes(Number(id)) &&
          value !== undefined &&
          normaliseVisitorIdValue(value) !== "";
        assert.equal(result.ok, expected);
        if (result.ok) assert.equal(result.value.value, normaliseVisitorIdValue(value as string));
      }),
    );
  });

  it("the hash input differs for different values or keys (no separator ambiguity)", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (keyA, valueA, keyB, valueB) => {
        fc.pre(keyA !== keyB || valueA !== valueB);
        fc.pre(!keyA.includes("\u0000") && !keyB.includes("\u0000"));
        assert.notEqual(valueHashInput(keyA, valueA), valueHashInput(keyB, valueB));
      }),
    );
  });
});
