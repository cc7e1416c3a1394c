import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { fileFailureMessages } from "./file-failure.messages.ts";
import {
  classifyFileFailure,
  collectError,
  fileFailureMessage,
  managementError,
  managementErrorBody,
  managementErrors,
  momentsError,
} from "./index.ts";
import { fillTemplate } from "./template.ts";

describe("management error catalogue (interface.md, Errors; DEC-GEN-01/03)", () => {
  const table: Array<[keyof typeof managementErrors, number, number, string]> = [
    ["invalidRequest", 400, 1400, "Invalid request submission. Please check supplied parameters or request body."],
    ["authenticationFailed", 401, 1401, "Authentication Failed"],
    ["tooManyLoginAttempts", 401, 1402, "Too many unsuccessful login attempts. Please try again in 10 minutes"],
    [
      "loginPermissionDenied",
      401,
      1469,
      "Although the user is authenticated, the request is denied due of lack of proper permissions",
    ],
    [
      "permissionDenied",
      401,
      1469,
      "although the user is authenticated, the request is denied because of a lack of proper permissions",
    ],
    [
      "statusUnavailable",
      404,
      1404,
      "Status unavailable. Please refer to documentation for request status retention period.",
    ],
    [
      "resourceAlreadyExists",
      405,
      1464,
      "Resource already exists. Updates are not permitted via this type of request.",
    ],
    ["accountNotFound", 404, 1240, "Account was not found"],
    ["profileNotFound", 404, 1250, "Profile was not found"],
    ["revisionDetailsNotFound", 404, 1260, "Revision details do not exist"],
    ["revisionNotLatest", 400, 1270, "The revision bundle requested is not the latest"],
    ["fileNotFound", 404, 1404, "Supplied file name not found"],
    ["visitorNotFound", 404, 1404, "Visitor not found"],
    ["transactionNotFound", 404, 1404, "Transaction not found"],
    ["internalError", 500, 1500, "Internal error"],
  ];
  it("dataLayerListTooLarge is 400 1400 naming the maximum (the contract's wording at the default of 1000)", () => {
    const error = managementError("dataLayerListTooLarge", { max: 1000 });
    assert.deepEqual(managementErrorBody(error), {
      returnCode: 1400,
      message: "Invalid request submission. Data layer list size exceeds maximum permissible (1000).",
    });
    assert.equal(error.status, 400);
  });
  for (const [code, status, returnCode, message] of table) {
    it(`${code} is ${status} ${returnCode} with the exact wording`, () => {
      const error = managementError(code as "invalidRequest");
      assert.equal(error.status, status);
      assert.equal(error.returnCode, returnCode);
      assert.equal(error.message, message);
      assert.deepEqual(managementErrorBody(error), { returnCode, message });
    });
  }

  it("[DLE-10] fills the data layer placeholders with the real values", () => {
    const error = managementError("dataLayerNotFound", { account: "acme", profile: "main", dl_id: "prod_1" });
    assert.equal(error.message, "Could not locate data layer for supplied params (acme/main/prod_1).");
    assert.equal(error.status, 404);
    assert.equal(error.returnCode, 1404);
  });

  it("every entry names at least one clause or decision ID", () => {
    for (const [code, entry] of Object.entries(managementErrors)) {
      assert.ok(entry.clauses.length > 0, code);
      for (const id of entry.clauses)
        assert.match(id, /^([A-Z]{3}(-ERR)?-\d{2}|DEC-[A-Z]{3}-\d{2})$/, `${code}: ${id}`);
    }
  });

  it("the body carries extra fields beside returnCode and message (DEC-PRV-01)", () => {
    const error = { ...managementError("visitorNotFound"), extra: { transaction_id: "t1" } };
    assert.deepEqual(managementErrorBody(error), {
      returnCode: 1404,
      message: "Visitor not found",
      transaction_id: "t1",
    });
  });
});

describe("collect and moments refusals", () => {
  it("[COL-04] a missing account or profile has the spec's X-Error text", () => {
    const error = collectError("missingAccountOrProfile");
    assert.equal(error.status, 400);
    assert.equal(error.xError, "Missing required svc_account or svc_profile param value");
  });

  it("[DEC-COL-07] the rate limit is 429 Rate limit exceeded", () => {
    assert.deepEqual(collectError("rateLimited"), {
      kind: "collect",
      code: "rateLimited",
      status: 429,
      xError: "Rate limit exceeded",
    });
  });

  it("[MOM-08] a disabled engine is 403", () => {
    assert.equal(momentsError("engineDisabled").status, 403);
  });

  it("[MOM-12] a bad request names its problem", () => {
    assert.equal(
      momentsError("badRequest", { problem: "attributeId must be numeric" }).message,
      "Bad request: attributeId must be numeric",
    );
  });
});

describe("file failure messages (FIL-09)", () => {
  it("there are exactly nine", () => {
    assert.equal(Object.keys(fileFailureMessages).length, 9);
  });

  it("fills the placeholders", () => {
    assert.equal(
      fileFailureMessage("recordTooLarge", { size: 17000000, max: 16777216 }),
      "DBObject of size 17000000 is over Max BSON size 16777216",
    );
    assert.equal(
      fileFailureMessage("visitorIdColumnMissing", { column_name: "email" }),
      "Secondary visitor ID column= email does not exist in the file, unable to continue",
    );
    assert.equal(
      fileFailureMessage("dateUnparsable", { date_format: "yyyy-MM-dd HH:mm" }),
      "yyyy-MM-dd HH:mm could not be parsed as a Date",
    );
    assert.equal(
      fileFailureMessage("columnCountMismatch", { columns: 3, processors: 4 }),
      "The number of columns to be processed 3 must match the number of CellProcessors 4: check that the number of CellProcessors you have defined matches the expected number of columns being read/written",
    );
    assert.equal(fileFailureMessage("unknownPrefix"), "Unknown file prefix, unable to parse file");
  });

  it("classifies any filled message back to its entry, and other text to none", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.nat(), (column, size) => {
        assert.equal(
          classifyFileFailure(fileFailureMessage("visitorIdColumnMissing", { column_name: column })),
          "visitorIdColumnMissing",
        );
        assert.equal(
          classifyFileFailure(fileFailureMessage("recordTooLarge", { size, max: size + 1 })),
          "recordTooLarge",
        );
      }),
    );
    assert.equal(classifyFileFailure("Unknown file prefix"), null);
    assert.equal(classifyFileFailure("something else"), null);
  });
});

describe("templates", () => {
  it("filling never throws and leaves text without placeholders unchanged", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes("{")),
        fc.dictionary(fc.string(), fc.string()),
        (text, values) => {
          assert.equal(fillTemplate(text, values), text);
        },
      ),
    );
  });

  it("a placeholder without a value stays visible rather than becoming 'undefined'", () => {
    assert.equal(fillTemplate("a {b} c", {}), "a {b} c");
  });
});

describe("file upload refusals (DEC-FIL-04)", () => {
  it("a file name imported before is 409 with a message naming the file and the profile", async () => {
    const { fileImportError } = await import("./index.ts");
    assert.deepEqual(
      fileImportError("alreadyImported", { file_name: "purchases_1.csv", account: "acme", profile: "main" }),
      {
        kind: "file-import",
        code: "alreadyImported",
        status: 409,
        message: "File purchases_1.csv has already been imported into acme/main; a file name is imported once",
      },
    );
  });
});
