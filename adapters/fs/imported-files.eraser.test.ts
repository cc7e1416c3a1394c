import { afterEach, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProfileConfig } from "../../core/config/index.ts";
import type { PrivacyTransaction, Stores } from "../../core/ports/index.ts";
import { deletionOf, importInProgress, seedProfile } from "../../testing/fixtures.ts";
import { erasureProfile, purchasesByEmail } from "../../testing/privacy/privacy.ts";
import { createMemoryStores } from "../store-memory/memory.stores.ts";
import { eraseFromImportedFiles } from "./imported-files.eraser.ts";
import { ReceivedFiles } from "./received-files.ts";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const config: ProfileConfig = erasureProfile([
  purchasesByEmail,
  { prefix: "crm", event: "crm", visitorId: { column: "customer", attribute: 5121 }, columns: [] },
]);

/** A deletion of `value`, an e-mail address unless `attributeId` says otherwise. */
function deletion(value: string, attributeId = 5120): PrivacyTransaction {
  return deletionOf(attributeId, value);
}

async function setUp(files: Record<string, string>): Promise<{ stores: Stores; dataDir: string; folder: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-erase-files-"));
  directories.push(dataDir);
  const folder = join(dataDir, "files", "acme", "main");
  mkdirSync(folder, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  const stores = createMemoryStores();
  await seedProfile(stores, config);
  return { stores, dataDir, folder };
}

describe("erasing a visitor from the kept copies of imported files (PRV-09, DEC-PRV-04)", () => {
  it("[DEC-PRV-05] drops exactly the records whose visitor ID column is the value (normalised), keeping every other byte: BOM, line ends, quotes", async () => {
    const original =
      '\uFEFFemail,amount\r\nbob@example.com,1\n ann@example.com\u00a0,2\r\n"ann@example.com",3\n"multi\nline é",4\r\nann@example.com,5';
    const { stores, dataDir, folder } = await setUp({ "purchases_1.csv": original });
    expect(
      await eraseFromImportedFiles({ stores, files: new ReceivedFiles(dataDir) }, deletion("ann@example.com")),
    ).toEqual({
      importedFiles: 1,
      importedRows: 3,
      importsUnfinished: 0,
    });
    expect(readFileSync(join(folder, "purchases_1.csv"), "utf8")).toBe(
      '\uFEFFemail,amount\r\nbob@example.com,1\n"multi\nline é",4\r\n',
    );
    expect(readdirSync(folder)).toEqual(["purchases_1.csv"]);
    expect(
      await eraseFromImportedFiles({ stores, files: new ReceivedFiles(dataDir) }, deletion("ann@example.com")),
    ).toEqual({
      importedFiles: 0,
      importedRows: 0,
      importsUnfinished: 0,
    });
  });

  it("[DEC-PRV-05] reads every file with a definition, finds the columns by their header names, and drops the rows holding the deleted value in any text field", async () => {
    const { stores, dataDir, folder } = await setUp({
      "purchases_1.csv": "amount, email \nann@example.com,ann@example.com\n1,ann@example.com\n",
      "crm_1.csv": "customer,note\nann@example.com,x\nC-1, ann@example.com\t\nC-2,Ann@example.com\n",
      "unknown_1.csv": "email\nann@example.com\n",
    });
    expect(
      await eraseFromImportedFiles({ stores, files: new ReceivedFiles(dataDir) }, deletion("ann@example.com")),
    ).toEqual({
      importedFiles: 2,
      importedRows: 4,
      importsUnfinished: 0,
    });
    expect(readFileSync(join(folder, "purchases_1.csv"), "utf8")).toBe("amount, email \n");
    // Case is part of the value; a file no definition reads was never imported and stays the operator's.
    expect(readFileSync(join(folder, "crm_1.csv"), "utf8")).toBe("customer,note\nC-2,Ann@example.com\n");
    expect(readFileSync(join(folder, "unknown_1.csv"), "utf8")).toBe("email\nann@example.com\n");
  });

  it("[DEC-PRV-05] a column mapped as a number, boolean or date holds no text value; a string column and an unmapped one do", async () => {
    const typed: ProfileConfig = {
      ...config,
      fileDefinitions: [
        {
          prefix: "orders",
          event: "order",
          visitorId: { column: "email", attribute: 5120 },
          columns: [
            { column: "quantity", attribute: 1, type: "number" },
            { column: "label", attribute: 2, type: "string" },
          ],
        },
      ],
    };
    const { stores, dataDir, folder } = await setUp({
      "orders_1.csv": "email,quantity,label,extra\na@x.com,77,l,e\nb@x.com,1, 77 ,e\nc@x.com,2,l,77\n",
    });
    await stores.tenancy.putProfile("acme", typed, 0);
    expect(await eraseFromImportedFiles({ stores, files: new ReceivedFiles(dataDir) }, deletion("77", 5121))).toEqual({
      importedFiles: 1,
      importedRows: 2,
      importsUnfinished: 0,
    });
    expect(readFileSync(join(folder, "orders_1.csv"), "utf8")).toBe("email,quantity,label,extra\na@x.com,77,l,e\n");
  });

  it("[PRV-09, DEC-PRV-04, DEC-PRV-05] searches every kept file, through its own definition, for each value of the erased group under that definition's attribute", async () => {
    const purchases = "email,amount\r\nbob@example.com,1\r\nann@example.com,2\r\nC-77,3\r\nann+alias@example.com,4\r\n";
    const crm = "customer,note\nC-77,x\nann@example.com,y\nC-78,z\n";
    const { stores, dataDir, folder } = await setUp({
      "purchases_1.csv": purchases,
      "purchases_2.csv": "email,amount\nann@example.com,9\n",
      "crm_1.csv": crm,
    });
    const group = [
      { attributeId: 5121, value: "C-77" },
      { attributeId: 5120, value: "ann@example.com" },
      { attributeId: 5120, value: "ann+alias@example.com" },
    ];
    expect(
      await eraseFromImportedFiles({ stores, files: new ReceivedFiles(dataDir) }, deletion("C-77", 5121), group),
    ).toEqual({
      importedFiles: 3,
      importedRows: 5,
      importsUnfinished: 0,
    });
    // The group's other values are looked for only under their own attribute (ann in a CRM file is someone
    // else's); the deleted value itself wherever a text field holds it (DEC-PRV-05).
    expect(readFileSync(join(folder, "purchases_1.csv"), "utf8")).toBe("email,amount\r\nbob@example.com,1\r\n");
    expect(readFileSync(join(folder, "purchases_2.csv"), "utf8")).toBe("email,amount\n");
    expect(readFileSync(join(folder, "crm_1.csv"), "utf8")).toBe("customer,note\nann@example.com,y\nC-78,z\n");
    expect(
      await eraseFromImportedFiles({ stores, files: new ReceivedFiles(dataDir) }, deletion("C-77", 5121), group),
    ).toEqual({
      importedFiles: 0,
      importedRows: 0,
      importsUnfinished: 0,
    });
  });

  it("[PRV-09] the deletion's own value is always looked for, whatever group is given", async () => {
    const { stores, dataDir, folder } = await setUp({ "crm_1.csv": "customer\nC-77\nC-78\n" });
    expect(
      await eraseFromImportedFiles({ stores, files: new ReceivedFiles(dataDir) }, deletion("C-77", 5121), [
        { attributeId: 5120, value: "ann@example.com" },
      ]),
    ).toEqual({ importedFiles: 1, importedRows: 1, importsUnfinished: 0 });
    expect(readFileSync(join(folder, "crm_1.csv"), "utf8")).toBe("customer\nC-78\n");
  });

  it("[DEC-PRV-04] removes the copy a crashed rewrite left beside a file, and erases the file, which still holds its original", async () => {
    const { stores, dataDir, folder } = await setUp({
      "purchases_1.csv": "email,amount\nann@example.com,1\nbob@example.com,2\n",
      ".0a1b2c3d4e5f.erasing": "email,amount\nbob@example.com,2\n",
    });
    expect(
      await eraseFromImportedFiles({ stores, files: new ReceivedFiles(dataDir) }, deletion("ann@example.com")),
    ).toEqual({
      importedFiles: 1,
      importedRows: 1,
      importsUnfinished: 0,
    });
    expect(readdirSync(folder)).toEqual(["purchases_1.csv"]);
    expect(readFileSync(join(folder, "purchases_1.csv"), "utf8")).toBe("email,amount\nbob@example.com,2\n");
  });

  it("leaves the file of an import that has not finished (it is read by position), and counts it", async () => {
    const { stores, dataDir, folder } = await setUp({ "purchases_2.csv": "email,amount\nann@example.com,1\n" });
    await stores.files.create(importInProgress({ nodeId: "node" }));
    expect(
      await eraseFromImportedFiles({ stores, files: new ReceivedFiles(dataDir) }, deletion("ann@example.com")),
    ).toEqual({
      importedFiles: 0,
      importedRows: 0,
      importsUnfinished: 1,
    });
    expect(readFileSync(join(folder, "purchases_2.csv"), "utf8")).toBe("email,amount\nann@example.com,1\n");
  });

  it("a data directory without kept files, or a profile without definitions, erases nothing", async () => {
    const { stores, dataDir } = await setUp({});
    rmSync(join(dataDir, "files"), { recursive: true, force: true });
    expect(
      await eraseFromImportedFiles({ stores, files: new ReceivedFiles(dataDir) }, deletion("ann@example.com")),
    ).toEqual({
      importedFiles: 0,
      importedRows: 0,
      importsUnfinished: 0,
    });
    expect(
      await eraseFromImportedFiles(
        { stores, files: new ReceivedFiles(dataDir) },
        { ...deletion("ann@example.com"), profile: "dev" },
      ),
    ).toEqual({ importedFiles: 0, importedRows: 0, importsUnfinished: 0 });
  });
});
