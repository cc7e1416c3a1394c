import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { managementError } from "../errors/index.ts";
import { checkImportFileName, checkStatusFileName, prefixOfFileName } from "./file-name.rules.ts";

describe("file names (FIL-10, DEC-FIL-04, FIL-ERR-05)", () => {
  it("a status call names at most 150 characters, .csv included", () => {
    const name146 = `${"a".repeat(146)}.csv`;
    assert.deepEqual(checkStatusFileName(name146), { ok: true, value: name146 });
    assert.deepEqual(checkStatusFileName(`a${name146}`), {
      ok: false,
      error: managementError("invalidParameter", { parameter: "fileName", problem: "longer than 150 characters" }),
    });
  });

  const importable: Array<[string, boolean]> = [
    ["purchases_2024-01-31.csv", true],
    ["purchases_2024-01-31T0930.csv", true],
    // FIL-10: `<prefix>_<id>.csv`; a name of no prefix group would be imported only to fail as an unknown prefix.
    ["nounderscore.csv", false],
    ["purchases_.csv", false],
    ["_2024.csv", false],
    ["web_orders_1.csv", true],
    [`${"p".repeat(140)}_12345.csv`, true],
    [`${"p".repeat(141)}_12345.csv`, false],
    ["purchases_2024.txt", false],
    [".csv", false],
    [".hidden_1.csv", false],
    ["../x_1.csv", false],
    ["a/b_1.csv", false],
    ["a b_1.csv", false],
    ["purchases_1.CSV", false],
  ];
  for (const [name, accepted] of importable) {
    it(`${accepted ? "imports" : "refuses"} ${JSON.stringify(name.length > 40 ? `${name.slice(0, 20)}…(${name.length})` : name)}`, () => {
      assert.equal(checkImportFileName(name).ok, accepted);
    });
  }

  const prefixes: Array<[string, string[], string]> = [
    ["purchases_2024-01-31.csv", ["purchases"], "purchases"],
    ["sales_eu_2024.csv", ["sales", "sales_eu"], "sales_eu"],
    ["sales_eu_2024.csv", ["sales"], "sales"],
    ["sales_eu.csv", ["sales_eu"], "sales"],
    ["unknown_2024_01.csv", ["purchases"], "unknown"],
    ["purchases.csv", ["purchases"], ""],
    ["purchases_.csv", ["purchases"], ""],
    ["_2024.csv", ["purchases"], ""],
  ];
  for (const [name, known, expected] of prefixes) {
    it(`${name} with definitions ${JSON.stringify(known)} is in prefix group ${expected}`, () => {
      assert.equal(prefixOfFileName(name, known), expected);
    });
  }

  it("a file named <prefix>_<id>.csv after a definition is in that definition's group, whatever the id", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z0-9~-][A-Za-z0-9_~-]{0,20}$/),
        fc.stringMatching(/^[A-Za-z0-9_.~-]{1,20}$/),
        (prefix, id) => {
          assert.equal(prefixOfFileName(`${prefix}_${id}.csv`, [prefix]), prefix);
        },
      ),
    );
  });
});
