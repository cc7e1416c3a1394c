import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { purchases } from "../../testing/files/file-import.ts";
import type { FileDefinition, ProfileConfig } from "../config/config.model.ts";
import { classifyFileFailure, fileFailureMessage } from "../errors/index.ts";
import { normaliseVisitorIdValue } from "../visitors/visitor-id.rules.ts";
import {
  checkDocumentSize,
  checkEventDocument,
  findDefinition,
  importRow,
  planRows,
  type RowContext,
  type RowPlan,
  utf8Length,
} from "./file-row.rules.ts";

const context: RowContext = {
  account: "acme",
  profile: "main",
  fileName: "purchases_1.csv",
  definition: purchases,
  visitorIdParameter: "email_address",
  at: 1_000,
};

function plan(header: string[], definition: FileDefinition = purchases): RowPlan {
  const result = planRows(definition, header);
  assert.ok(result.ok, JSON.stringify(result));
  return result.value;
}

/** DEC-FIL-03: the size of an event's stored document, the UTF-8 bytes of its JSON: what the checks are held to. */
function documentSize(event: object): number {
  return utf8Length(JSON.stringify(event));
}

describe("rows to events (DEC-FIL-03, DEC-FIL-04)", () => {
  it("finds the definition of a prefix, or answers the unknown-prefix failure", () => {
    const config = { fileDefinitions: [purchases] } as unknown as ProfileConfig;
    assert.deepEqual(findDefinition(config, "purchases"), { ok: true, value: purchases });
    assert.deepEqual(findDefinition(config, "purchase"), {
      ok: false,
      error: "Unknown file prefix, unable to parse file",
    });
    assert.deepEqual(findDefinition(null, "purchases"), {
      ok: false,
      error: "Unknown file prefix, unable to parse file",
    });
  });

  it("a header without the visitor ID column is the visitor ID column failure, naming the column", () => {
    assert.deepEqual(planRows(purchases, ["mail", "amount", "purchased_at"]), {
      ok: false,
      error: "Secondary visitor ID column= email does not exist in the file, unable to continue",
    });
  });

  it("a header missing a mapped column is the column count failure: columns found against columns mapped", () => {
    assert.deepEqual(planRows(purchases, ["email", "amount"]), {
      ok: false,
      error: fileFailureMessage("columnCountMismatch", { columns: 2, processors: 3 }),
    });
  });

  it("a mapped column named twice in the header is the column count failure: which of the two holds the value cannot be told", () => {
    assert.deepEqual(planRows(purchases, ["email", "amount", "purchased_at", "amount "]), {
      ok: false,
      error: fileFailureMessage("columnCountMismatch", { columns: 4, processors: 3 }),
    });
    assert.deepEqual(planRows(purchases, ["email", "amount", "email", "purchased_at"]), {
      ok: false,
      error: fileFailureMessage("columnCountMismatch", { columns: 4, processors: 3 }),
    });
    // A column no mapping reads may repeat: nothing is read from it.
    assert.equal(plan(["email", "note", "amount", "note", "purchased_at"]).columns.length, 2);
  });

  it("columns may come in any order, with spaces around names, beside columns that are not mapped", () => {
    const planned = plan([" purchased_at", "note", "email ", "amount"]);
    assert.equal(planned.visitorIndex, 2);
    assert.deepEqual(
      planned.columns.map((column) => [column.column.column, column.index]),
      [
        ["amount", 3],
        ["purchased_at", 0],
      ],
    );
  });

  it("a row becomes an event of the known visitor with the mapped columns, _source_file and _file_line_num", () => {
    const outcome = importRow(
      plan(["email", "amount", "purchased_at", "note"]),
      context,
      ["ann@example.com", "12.50", "2024-01-31 09:30", "ignored"],
      2,
    );
    assert.deepEqual(outcome, {
      kind: "event",
      event: {
        account: "acme",
        profile: "main",
        visitorId: "__acme_main__5120_ann@example.com__",
        visitorIdSource: "visitor_id",
        thirdPartyVisitorId: null,
        firstPartyVisitorId: null,
        event: "purchase",
        datasource: null,
        traceId: null,
        receivedAt: 1_000,
        data: {
          svc_visitor_id: "__acme_main__5120_ann@example.com__",
          email_address: "ann@example.com",
          amount: 12.5,
          purchased_at: Date.UTC(2024, 0, 31, 9, 30),
          _source_file: "purchases_1.csv",
          _file_line_num: 2,
        },
      },
    });
  });

  it("a row without a visitor ID value, or a blank line, is skipped", () => {
    const planned = plan(["email", "amount", "purchased_at"]);
    assert.deepEqual(importRow(planned, context, ["", "1", "2024-01-31 09:30"], 2), { kind: "skipped" });
    assert.deepEqual(importRow(planned, context, ["  ", "1", "2024-01-31 09:30"], 2), { kind: "skipped" });
    assert.deepEqual(importRow(planned, context, [""], 2), { kind: "skipped" });
    // A line of spaces or tabs only is blank too.
    assert.deepEqual(importRow(planned, context, ["   "], 2), { kind: "skipped" });
    assert.deepEqual(importRow(planned, context, ["\t"], 2), { kind: "skipped" });
    // Only spaces and tabs: a no-break space is a value (and this row then has too few fields).
    assert.equal(importRow(planned, context, ["\u00a0"], 2).kind, "failed");
  });

  it("[DEC-PRV-05] the visitor ID value is normalised as collection normalises it: White_Space around it removed, case kept", () => {
    const planned = plan(["email", "amount", "purchased_at"]);
    for (const raw of [
      " Ann@example.com",
      "Ann@example.com\t",
      "\u00a0Ann@example.com\u2003",
      "\u0085Ann@example.com",
    ]) {
      const outcome = importRow(planned, context, [raw, "1", "2024-01-31 09:30"], 2);
      assert.equal(
        outcome.kind === "event" && outcome.event.visitorId,
        "__acme_main__5120_Ann@example.com__",
        JSON.stringify(raw),
      );
      assert.equal(outcome.kind === "event" && outcome.event.data.email_address, "Ann@example.com");
    }
    // White space only is no value: the row is skipped (a no-break space included, unlike a blank line).
    assert.deepEqual(importRow(planned, context, ["\u00a0\u3000", "1", "2024-01-31 09:30"], 2), { kind: "skipped" });
  });

  it("empty values of mapped columns are left out, not failed", () => {
    const outcome = importRow(plan(["email", "amount", "purchased_at"]), context, ["ann", "", " "], 2);
    assert.equal(outcome.kind, "event");
    assert.ok(outcome.kind === "event" && !("amount" in outcome.event.data) && !("purchased_at" in outcome.event.data));
  });

  const failures: Array<[string, string[], string]> = [
    ["a number that is not one", ["ann", "12,50", "2024-01-31 09:30"], fileFailureMessage("processingException")],
    ["a date in another format", ["ann", "1", "31/01/2024 09:30"], "yyyy-MM-dd HH:mm could not be parsed as a Date"],
    ["too few fields", ["ann", "1"], fileFailureMessage("columnCountMismatch", { columns: 2, processors: 3 })],
    [
      "too many fields",
      ["ann", "1", "2024-01-31 09:30", "x"],
      fileFailureMessage("columnCountMismatch", { columns: 4, processors: 3 }),
    ],
    // PRV-05, PRV-09: the privacy API could never name such a visitor, nor the moments API find it.
    [
      "a visitor ID value of 1,025 characters",
      ["a".repeat(1025), "1", "2024-01-31 09:30"],
      fileFailureMessage("processingException"),
    ],
    [
      "a visitor ID value with a control character",
      ["ann\u0000x", "1", "2024-01-31 09:30"],
      fileFailureMessage("processingException"),
    ],
    // Bytes that were not UTF-8 arrive as U+FFFD: the value could not be read, and no one could name that visitor.
    [
      "a visitor ID value that was not UTF-8",
      ["jos\ufffd@example.com", "1", "2024-01-31 09:30"],
      fileFailureMessage("processingException"),
    ],
  ];
  for (const [what, fields, failure] of failures) {
    it(`${what} fails the row: ${failure.slice(0, 60)}`, () => {
      assert.deepEqual(importRow(plan(["email", "amount", "purchased_at"]), context, fields, 5), {
        kind: "failed",
        failure,
      });
    });
  }

  it("booleans read true/false, 1/0, y/n, yes/no, t/f in any case; strings are kept as they are", () => {
    const definition: FileDefinition = {
      ...purchases,
      columns: [
        { column: "vip", attribute: 1, type: "boolean" },
        { column: "name", attribute: 2, type: "string" },
      ],
    };
    const planned = plan(["email", "vip", "name"], definition);
    const read = (vip: string) => importRow(planned, { ...context, definition }, ["ann", vip, " Ann "], 2);
    for (const [text, value] of [
      ["TRUE", true],
      ["0", false],
      ["yes", true],
      ["f", false],
    ] as const) {
      const outcome = read(text);
      assert.ok(outcome.kind === "event" && outcome.event.data.vip === value && outcome.event.data.name === " Ann ");
    }
    assert.deepEqual(read("maybe"), { kind: "failed", failure: fileFailureMessage("processingException") });
  });

  it("the document size is the UTF-8 length of the event's JSON, and a document over the limit is the BSON size failure", () => {
    assert.equal(utf8Length("aé€😀"), 1 + 2 + 3 + 4);
    const outcome = importRow(plan(["email", "amount", "purchased_at"]), context, ["ann", "1", "2024-01-31 09:30"], 2);
    assert.ok(outcome.kind === "event");
    const size = documentSize(outcome.event);
    assert.equal(size, new TextEncoder().encode(JSON.stringify(outcome.event)).length);
    assert.deepEqual(checkDocumentSize(size, size), { ok: true, value: size });
    assert.deepEqual(checkDocumentSize(size, size - 1), {
      ok: false,
      error: `DBObject of size ${size} is over Max BSON size ${size - 1}`,
    });
  });

  it("checkEventDocument refuses exactly the events whose UTF-8 JSON is over the limit, with the BSON size failure (DEC-FIL-03)", () => {
    // Mostly characters of three UTF-8 bytes each, where a document's bytes come closest to three times its length.
    const text = fc.string({
      unit: fc.oneof(
        { arbitrary: fc.constant("€"), weight: 4 },
        fc.constantFrom("a", "é", "😀", "\u0001", '"'),
        fc.string({ unit: "binary", maxLength: 1 }),
      ),
      minLength: 30,
      maxLength: 80,
    });
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 2 }), text, { maxKeys: 3 }), fc.nat(), (data, random) => {
        const event = { data } as unknown as Parameters<typeof checkEventDocument>[0];
        const size = documentSize(event);
        for (const maxBytes of [
          0,
          size - 1,
          size,
          size + 1,
          Math.floor(size * 0.9),
          Math.floor(size / 2),
          random % (2 * size),
        ]) {
          const checked = checkEventDocument(event, maxBytes);
          if (size <= maxBytes) assert.deepEqual(checked, { ok: true, value: undefined });
          else
            assert.deepEqual(checked, {
              ok: false,
              error: `DBObject of size ${size} is over Max BSON size ${maxBytes}`,
            });
        }
      }),
      { numRuns: 300 },
    );
  });

  it("any row gives an event, a skip, or a failure from the catalogue, and never throws", () => {
    const planned = plan(["email", "amount", "purchased_at"]);
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 5 }), fc.nat(), (fields, line) => {
        const outcome = importRow(planned, context, fields, line);
        if (outcome.kind === "failed") assert.notEqual(classifyFileFailure(outcome.failure), null);
        if (outcome.kind === "event") {
          assert.equal(outcome.event.data._file_line_num, line);
          assert.equal(outcome.event.visitorId, `__acme_main__5120_${normaliseVisitorIdValue(fields[0] as string)}__`);
        }
      }),
    );
  });

  it("UTF-8 length agrees with an encoder on any text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) =>
        assert.equal(utf8Length(text), new TextEncoder().encode(text).length),
      ),
    );
  });
});
