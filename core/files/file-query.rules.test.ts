import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { managementError } from "../errors/index.ts";
import { prefixOfFileName } from "./file-name.rules.ts";
import {
  fileMatchesPrefix,
  fileNameHasPrefix,
  parseQueryDate,
  prefixGroupsOfQuery,
  validateFileQuery,
} from "./file-query.rules.ts";

describe("count and search parameters (FIL-11, FIL-ERR-01..04, DEC-FIL-06)", () => {
  const dates: Array<[string, string | null]> = [
    ["2024-01-31T09:30Z", "2024-01-31T09:30:00.000Z"],
    ["2024-01-31T09:30+0100", "2024-01-31T08:30:00.000Z"],
    ["2024-01-31T09:30-0530", "2024-01-31T15:00:00.000Z"],
    ["2024-01-31T09:30+01:00", "2024-01-31T08:30:00.000Z"],
    ["2024-01-31T09:30 0100", "2024-01-31T08:30:00.000Z"],
    ["2024-01-31T09:30:15Z", "2024-01-31T09:30:15.000Z"],
    ["2024-01-31T09:30:15.5Z", "2024-01-31T09:30:15.500Z"],
    ["2024-01-31T09:30:15.123+0000", "2024-01-31T09:30:15.123Z"],
    ["2024-01-31T09:30:15.123456Z", "2024-01-31T09:30:15.123Z"],
    ["2024-01-31T09:30:15.999999999+00:00", "2024-01-31T09:30:15.999Z"],
    ["2024-01-31t09:30:15.1z", "2024-01-31T09:30:15.100Z"],
    ["2024-01-31T09:30:15.1234567890Z", null],
    ["2024-01-31T09:30:15.Z", null],
    ["2024-01-31T09:30", null],
    ["2024-01-31", null],
    ["2024-01-31 09:30Z", null],
    ["2024-02-30T09:30Z", null],
    ["2024-01-31T24:00Z", null],
    ["2024-01-31T09:30+2400", null],
    ["yesterday", null],
    ["1706693400000", null],
  ];
  for (const [text, expected] of dates) {
    it(`${JSON.stringify(text)} is ${expected ?? "not a date"}`, () => {
      const parsed = parseQueryDate(text);
      assert.equal(parsed === null ? null : new Date(parsed).toISOString(), expected);
    });
  }

  const invalid = (parameter: string, problem: string) => ({
    ok: false,
    error: managementError("invalidParameter", { parameter, problem }),
  });
  const dateProblem = "not a date-time such as 2024-01-31T09:30Z or 2024-01-31T09:30:00.000+0100";
  const start = "2024-01-01T00:00Z";
  const end = "2024-01-31T00:00Z";
  const cases: Array<[string, Record<string, string | undefined>, unknown]> = [
    [
      "a valid query",
      { filePrefix: "purchases", startDate: start, endDate: end },
      { ok: true, value: { prefix: "purchases", from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 0, 31) } },
    ],
    [
      "equal dates (the range is inclusive)",
      { filePrefix: "p", startDate: start, endDate: start },
      { ok: true, value: { prefix: "p", from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 0, 1) } },
    ],
    ["no prefix", { startDate: start, endDate: end }, invalid("filePrefix", "missing")],
    ["an empty prefix", { filePrefix: "", startDate: start, endDate: end }, invalid("filePrefix", "missing")],
    [
      "a prefix of 151",
      { filePrefix: "p".repeat(151), startDate: start, endDate: end },
      invalid("filePrefix", "longer than 150 characters"),
    ],
    ["no startDate", { filePrefix: "p", endDate: end }, invalid("startDate", "missing")],
    ["no endDate", { filePrefix: "p", startDate: start }, invalid("endDate", "missing")],
    ["a bad startDate", { filePrefix: "p", startDate: "2024-01-01", endDate: end }, invalid("startDate", dateProblem)],
    ["a bad endDate", { filePrefix: "p", startDate: start, endDate: "soon" }, invalid("endDate", dateProblem)],
    [
      "endDate before startDate",
      { filePrefix: "p", startDate: end, endDate: start },
      invalid("endDate", "before startDate"),
    ],
  ];
  for (const [what, parameters, expected] of cases) {
    it(`${what}: ${JSON.stringify(expected).slice(0, 120)}`, () => {
      assert.deepEqual(validateFileQuery(parameters), expected);
    });
  }

  it("a prefix of exactly 150 characters is accepted", () => {
    assert.equal(validateFileQuery({ filePrefix: "p".repeat(150), startDate: start, endDate: end }).ok, true);
  });

  it("every time written as ISO 8601 with Z, or with any offset, reads back as that time", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(9000, 0, 1) }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        (ms, offsetMinutes) => {
          assert.equal(parseQueryDate(new Date(ms).toISOString()), ms);
          const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const sign = offsetMinutes < 0 ? "-" : "+";
          const abs = Math.abs(offsetMinutes);
          const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
          assert.equal(parseQueryDate(`${local}${offset}`), ms);
        },
      ),
    );
  });

  it("validation never throws and answers only 400 1400 naming one of the three parameters", () => {
    fc.assert(
      fc.property(
        fc.option(fc.string()),
        fc.option(fc.string()),
        fc.option(fc.string()),
        (filePrefix, startDate, endDate) => {
          const result = validateFileQuery({
            filePrefix: filePrefix ?? undefined,
            startDate: startDate ?? undefined,
            endDate: endDate ?? undefined,
          });
          if (!result.ok) {
            assert.equal(result.error.status, 400);
            assert.equal(result.error.returnCode, 1400);
            assert.match(
              result.error.message,
              /^Invalid request submission\. Invalid (filePrefix|startDate|endDate): .+\.$/,
            );
          }
        },
      ),
    );
  });
});

describe("the files a count or search of one prefix finds (DEC-FIL-06, FIL-10)", () => {
  it("a prefix's groups are the prefix and each leading part of it that ends before an underscore", () => {
    assert.deepEqual(prefixGroupsOfQuery("purchases"), ["purchases"]);
    assert.deepEqual(prefixGroupsOfQuery("web_orders"), ["web", "web_orders"]);
    assert.deepEqual(prefixGroupsOfQuery("a__b_c"), ["a", "a_", "a__b", "a__b_c"]);
    assert.deepEqual(prefixGroupsOfQuery("_x"), ["_x"]);
  });

  it("a file of prefix P is named P_<id>.csv with an id", () => {
    assert.equal(fileNameHasPrefix("web_orders_2024-03-01.csv", "web_orders"), true);
    assert.equal(fileNameHasPrefix("web_orders_2024-03-01.csv", "web"), true);
    assert.equal(fileNameHasPrefix("web_orders_2024-03-01.csv", "web_order"), false);
    assert.equal(fileNameHasPrefix("web_orders_.csv", "web_orders"), false);
    assert.equal(fileNameHasPrefix("Web_orders_1.csv", "web"), false);
  });

  const known = ["purchases", "sales", "sales_eu"];
  const matches: Array<[string, string, boolean]> = [
    // A file of an unknown prefix that holds "_" (recorded under the text before its first "_"), DEC-FIL-06.
    ["web_orders_2024-03-01.csv", "web_orders", true],
    ["web_orders_2024-03-01.csv", "web", true],
    ["web_orders_2024-03-01.csv", "web_orders_2024-03-01", false],
    ["web_orders_2024-03-01.csv", "web_order", false],
    ["web_returns_2024-03-01.csv", "web_orders", false],
    // Known prefixes as before: a file of a definition only, each definition its own group.
    ["purchases_2024-01-31.csv", "purchases", true],
    ["purchasesX_1.csv", "purchases", false],
    ["purchases_2024_01.csv", "purchases_2024", true],
    ["sales_eu_2024.csv", "sales_eu", true],
    ["sales_eu_2024.csv", "sales", false],
    ["sales_us_2024.csv", "sales", true],
    ["purchases.csv", "purchases", false],
  ];
  for (const [name, prefix, expected] of matches) {
    it(`[DEC-FIL-06] with definitions ${JSON.stringify(known)}, filePrefix=${prefix} ${expected ? "finds" : "does not find"} ${name}`, () => {
      assert.equal(fileMatchesPrefix({ name, prefix: prefixOfFileName(name, known) }, prefix), expected);
    });
  }

  it("[DEC-FIL-06] filePrefix=P finds exactly the files named P_<id>.csv that no definition longer than P claims", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[ab_]{1,8}$/),
        fc.array(fc.stringMatching(/^[ab][ab_]{0,4}$/), { maxLength: 4 }),
        fc.stringMatching(/^[ab][ab_]{0,5}$/),
        (stem, definitions, prefix) => {
          const name = `${stem}.csv`;
          const recorded = prefixOfFileName(name, definitions);
          assert.equal(
            fileMatchesPrefix({ name, prefix: recorded }, prefix),
            fileNameHasPrefix(name, prefix) && recorded.length <= prefix.length,
          );
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
