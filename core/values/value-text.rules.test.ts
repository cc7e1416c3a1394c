import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { decimalNumberText, numberAsIdText, readDecimalNumber, readIsoDateTime } from "./value-text.rules.ts";

describe("decimal number text (DEC-PRO-01, DEC-FIL-04)", () => {
  it("reads an optional sign, digits, an optional fraction and exponent; spaces around are allowed", () => {
    const table: Array<[string, number | null]> = [
      ["12", 12],
      ["-12.5", -12.5],
      ["+.5", 0.5],
      ["1.", 1],
      ["1e3", 1000],
      ["2.5E-1", 0.25],
      ["  7  ", 7],
      ["0x10", null],
      ["0b11", null],
      ["0o7", null],
      ["Infinity", null],
      ["-Infinity", null],
      ["NaN", null],
      ["1e400", null],
      ["", null],
      ["   ", null],
      ["1,5", null],
      ["1_000", null],
      [".", null],
      ["e5", null],
      ["12abc", null],
    ];
    for (const [text, expected] of table) assert.equal(readDecimalNumber(text), expected, JSON.stringify(text));
  });

  it("the pattern takes exactly what it reads, and what it reads is finite", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.double().map(String),
          fc.integer().map((n) => n.toString(16)),
        ),
        (text) => {
          const read = readDecimalNumber(text);
          if (read !== null) {
            assert.ok(Number.isFinite(read));
            assert.ok(decimalNumberText.test(text.trim()));
          }
        },
      ),
    );
  });
});

describe("ISO 8601 date text (MOM-03, DEC-MOM-04)", () => {
  it("reads a date, or a date and time with an optional zone; zone-less is UTC", () => {
    const table: Array<[string, number | null]> = [
      ["2024-02-29", Date.UTC(2024, 1, 29)],
      ["2026-11-21T09:00:00Z", Date.UTC(2026, 10, 21, 9)],
      ["2026-11-21T09:00", Date.UTC(2026, 10, 21, 9)],
      ["2026-11-21 09:00:30", Date.UTC(2026, 10, 21, 9, 0, 30)],
      ["2026-11-21T09:00:30.5", Date.UTC(2026, 10, 21, 9, 0, 30, 500)],
      ["2026-11-21T09:00:30.123456Z", Date.UTC(2026, 10, 21, 9, 0, 30, 123)],
      ["2026-11-21T09:00+02:00", Date.UTC(2026, 10, 21, 7)],
      ["2026-11-21T09:00:00-0530", Date.UTC(2026, 10, 21, 14, 30)],
      ["2026-11-21T23:59:59.999Z", Date.UTC(2026, 10, 21, 23, 59, 59, 999)],
      [" 2026-11-21 ", Date.UTC(2026, 10, 21)],
      ["0001-01-01", -62135596800000],
      ["Jan 1", null],
      ["hello 2020", null],
      ["2020", null],
      ["2024-02-30", null],
      ["2023-02-29", null],
      ["2024-13-01", null],
      ["2024-00-10", null],
      ["2024-01-00", null],
      ["2024-01-01T24:00", null],
      ["2024-01-01T10:60", null],
      ["2024-01-01T10:00:60", null],
      ["2024-01-01T10", null],
      ["2024-01-01Z", null],
      ["2024-01-01T10:00+24:00", null],
      ["2024-01-01T10:00+02:60", null],
      ["2024-1-1", null],
      ["2024-01-01T10:00:00.Z", null],
      ["Mon, 01 Jan 2024 10:00:00 GMT", null],
      ["", null],
    ];
    for (const [text, expected] of table) assert.equal(readIsoDateTime(text), expected, JSON.stringify(text));
  });

  it("a date and time given in UTC reads back as the instant Date.UTC computes, whatever the process's zone", () => {
    fc.assert(
      fc.property(
        fc.record({
          year: fc.integer({ min: 1970, max: 9999 }),
          month: fc.integer({ min: 1, max: 12 }),
          day: fc.integer({ min: 1, max: 28 }),
          hour: fc.integer({ min: 0, max: 23 }),
          minute: fc.integer({ min: 0, max: 59 }),
          second: fc.integer({ min: 0, max: 59 }),
          ms: fc.integer({ min: 0, max: 999 }),
        }),
        fc.constantFrom("", "Z", "+00:00", "-0000"),
        ({ year, month, day, hour, minute, second, ms }, zone) => {
          const two = (n: number) => String(n).padStart(2, "0");
          const text = `${year}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(second)}.${String(ms).padStart(3, "0")}${zone}`;
          assert.equal(readIsoDateTime(text), Date.UTC(year, month - 1, day, hour, minute, second, ms), text);
        },
      ),
    );
  });

  it("never throws, and reads nothing but ISO text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const read = readIsoDateTime(text);
        if (read !== null) assert.match(text.trim(), /^\d{4}-\d{2}-\d{2}/);
      }),
    );
  });
});

describe("a JSON number as an id's text (DEC-COL-09)", () => {
  it("is the number's text, none for what is not a finite number or is a whole number past 2^53", () => {
    assert.equal(numberAsIdText(42), "42");
    assert.equal(numberAsIdText(-1.5), "-1.5");
    assert.equal(numberAsIdText(2 ** 53 - 1), "9007199254740991");
    assert.equal(numberAsIdText(2 ** 53 + 2), null);
    assert.equal(numberAsIdText(Number.NaN), null);
    assert.equal(numberAsIdText("42"), null);
    assert.equal(numberAsIdText(null), null);
  });
});
