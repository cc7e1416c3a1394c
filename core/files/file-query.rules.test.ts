import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { managementError } from "../errors/index.ts";
import { parseQueryDate, validateFileQuery } from "./file-query.rules.ts";

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

  const invalid = (parameter: string, problem: string) => ({ ok: false, error: managementError("invalidParameter", { parameter, problem }) });
  const dateProblem = "not a date-time such as 2024-01-31T09:30Z or 2024-01-31T09:30:00.000+0100";
  const start = "2024-01-01T00:00Z";
  const end = "2024-01-31T00:00Z";
  const cases: Array<[string, Record<string, string | undefined>, unknown]> = [
    ["a valid query", { filePrefix: "purchases", startDate: start, endDate: end }, { ok: true, value: { prefix: "purchases", from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 0, 31) } }],
    ["equal dates (the range is inclusive)", { filePrefix: "p", startDate: start, endDate: start }, { ok: true, value: { prefix: "p", from: Date.UTC(2024, 0, 1), to: Date.UTC(2024, 0, 1) } }],
    ["no prefix", { startDate: start, endDate: end }, invalid("filePrefix", "missing")],
    ["an empty prefix", { filePrefix: "", startDate: start, endDate: end }, invalid("filePrefix", "missing")],
    ["a prefix of 151", { filePrefix: "p".repeat(151), startDate: start, endDate: end }, invalid("filePrefix", "longer than 150 characters")],
    ["no startDate", { filePrefix: "p", endDate: end }, invalid("startDate", "missing")],
    ["no endDate", { filePrefix: "p", startDate: start }, invalid("endDate", "missing")],
    ["a bad startDate", { filePrefix: "p", startDate: "2024-01-01", endDate: end }, invalid("startDate", dateProblem)],
    ["a bad endDate", { filePrefix: "p", startDate: start, endDate: "soon" }, invalid("endDate", dateProblem)],
    ["endDate before startDate", { filePrefix: "p", startDate: end, endDate: start }, invalid("endDate", "before startDate")],
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
      fc.property(fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(9000, 0, 1) }), fc.integer({ min: -14 * 60, max: 14 * 60 }), (ms, offsetMinutes) => {
        assert.equal(parseQueryDate(new Date(ms).toISOString()), ms);
        const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23);
        const sign = offsetMinutes < 0 ? "-" : "+";
        const abs = Math.abs(offsetMinutes);
        const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
        assert.equal(parseQueryDate(`${local}${offset}`), ms);
      }),
    );
  });

  it("validation never throws and answers only 400 1400 naming one of the three parameters", () => {
    fc.assert(
      fc.property(fc.option(fc.string()), fc.option(fc.string()), fc.option(fc.string()), (filePrefix, startDate, endDate) => {
        const result = validateFileQuery({ filePrefix: filePrefix ?? undefined, startDate: startDate ?? undefined, endDate: endDate ?? undefined });
        if (!result.ok) {
          assert.equal(result.error.status, 400);
          assert.equal(result.error.returnCode, 1400);
          assert.match(result.error.message, /^Invalid request submission\. Invalid (filePrefix|startDate|endDate): .+\.$/);
        }
      }),
    );
  });
});
