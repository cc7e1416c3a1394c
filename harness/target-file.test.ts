/**
 * The target file's fixtures: every fixture of the demo can be named, a file without the newer fields
 * (visitor data, file definition, revision) keeps svc-hub's demo values, and a fixture of the wrong type is
 * refused before the run with the field's place, what it must be and what was given.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatDate } from "../conformance/files.scenarios.ts";
import { svcHubDemoFixtures } from "../conformance/implementations/svc-hub/in-process-target.ts";
import { demoFixtures, type TargetFixtures } from "./target.ts";
import { fixturesOf, readTargetFile, type TargetFileFixtures, targetFileJsonSchema } from "./target-file.ts";

/**
 * The fixtures a target file can name are exactly those of TargetFixtures, group by group: tsc fails on this
 * line when a fixture is added to one and not the other.
 */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
type Group<T, K extends keyof T> = NonNullable<T[K]>;
const fixturesMatch: [
  SameKeys<TargetFileFixtures, TargetFixtures>,
  SameKeys<Group<TargetFileFixtures, "attributes">, TargetFixtures["attributes"]>,
  SameKeys<Group<TargetFileFixtures, "visitorIdAttributes">, TargetFixtures["visitorIdAttributes"]>,
  SameKeys<Group<TargetFileFixtures, "engines">, TargetFixtures["engines"]>,
  SameKeys<Group<TargetFileFixtures, "fileDefinition">, TargetFixtures["fileDefinition"]>,
  SameKeys<Group<TargetFileFixtures, "revision">, TargetFixtures["revision"]>,
  SameKeys<Group<TargetFileFixtures, "user">, TargetFixtures["user"]>,
] = [true, true, true, true, true, true, true];

const folder = mkdtempSync(join(tmpdir(), "svc-hub-target-file-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

let written = 0;
function targetFile(content: unknown): string {
  written += 1;
  const path = join(folder, `target-${written}.json`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

/** The message readTargetFile refuses the content with. */
function refusal(content: unknown): string {
  try {
    readTargetFile(targetFile(content));
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error(`expected ${JSON.stringify(content)} to be refused`);
}

describe("a target file's fixtures", () => {
  it("the shipped svc-hub-demo.json names every fixture, with the values of svc-hub's demo, optional ones included", () => {
    const file = readTargetFile(join(import.meta.dir, "..", "conformance", "targets", "svc-hub-demo.json"));
    expect(Object.keys(file.fixtures ?? {}).sort()).toEqual(Object.keys(svcHubDemoFixtures).sort());
    expect(file.fixtures as unknown).toEqual(svcHubDemoFixtures);
    expect(fixturesOf(file)).toEqual(svcHubDemoFixtures);
    expect(svcHubDemoFixtures.engines.attributesOnly).toBe("demo-engine-attributes");
  });

  it("an optional fixture is absent unless the file names it: the demo tenants of demo.md have no attributes-only engine", () => {
    expect(demoFixtures.engines.attributesOnly).toBeUndefined();
    expect(
      fixturesOf(readTargetFile(targetFile({ fixtures: { engines: { names: "their-engine" } } }))).engines,
    ).toEqual({ ...demoFixtures.engines, names: "their-engine" });
    expect(
      fixturesOf(readTargetFile(targetFile({ fixtures: { engines: { attributesOnly: "their-partial-engine" } } })))
        .engines.attributesOnly,
    ).toBe("their-partial-engine");
    // In-process the target is svc-hub's demo, and a file's fixtures are merged over svc-hub's values.
    expect(fixturesOf(null, svcHubDemoFixtures)).toEqual(svcHubDemoFixtures);
  });

  it("a file with only the tenants and users of before gets the demo's attributes, audience, engines, file definition and revision", () => {
    const file = readTargetFile(
      targetFile({
        base: "http://localhost:9",
        fixtures: { account: "theirs", user: { email: "a@b.c", password: "p", apiKey: "k" } },
      }),
    );
    const fixtures = fixturesOf(file);
    expect(fixtures.account).toBe("theirs");
    expect(fixtures.user).toEqual({ email: "a@b.c", password: "p", apiKey: "k" });
    expect({ ...fixtures, account: demoFixtures.account, user: demoFixtures.user }).toEqual(demoFixtures);
    expect(fixturesOf(null)).toEqual(demoFixtures);
  });

  it("a group given in part keeps the demo's values for the members it leaves out", () => {
    const file = readTargetFile(
      targetFile({
        fixtures: {
          engines: { names: "their-engine" },
          attributes: { eventCount: { id: 1, name: "Visits" } },
          fileDefinition: { prefix: "orders", dateFormat: "dd.MM.yyyy" },
          revision: { target: "live" },
          audience: { id: 42, name: "Buyers" },
        },
      }),
    );
    const fixtures = fixturesOf(file);
    expect(fixtures.engines).toEqual({ ...demoFixtures.engines, names: "their-engine" });
    expect(fixtures.attributes).toEqual({ ...demoFixtures.attributes, eventCount: { id: 1, name: "Visits" } });
    expect(fixtures.fileDefinition).toEqual({
      ...demoFixtures.fileDefinition,
      prefix: "orders",
      dateFormat: "dd.MM.yyyy",
    });
    expect(fixtures.revision).toEqual({ target: "live", files: demoFixtures.revision.files });
    expect(fixtures.audience).toEqual({ id: 42, name: "Buyers" });
    expect(fixtures.visitorIdAttributes).toEqual(demoFixtures.visitorIdAttributes);
  });

  it("an attribute id that is not an integer is refused, naming the field and the value given", () => {
    const message = refusal({ fixtures: { audience: { id: "7", name: "Purchasers" } } });
    expect(message).toStartWith("target file ");
    expect(message).toContain('/fixtures/audience/id: Expected integer, got "7"');
    expect(
      refusal({ fixtures: { attributes: { eventCount: { id: 5201.5, name: "Lifetime event count" } } } }),
    ).toContain("/fixtures/attributes/eventCount/id: Expected integer, got 5201.5");
  });

  it("an engine, prefix, column or target that is not a non-empty string is refused", () => {
    expect(refusal({ fixtures: { engines: { names: 5 } } })).toContain(
      "/fixtures/engines/names: Expected string, got 5",
    );
    expect(refusal({ fixtures: { engines: { attributesOnly: "" } } })).toContain(
      '/fixtures/engines/attributesOnly: Expected string length greater or equal to 1, got ""',
    );
    expect(refusal({ fixtures: { fileDefinition: { prefix: "" } } })).toContain(
      '/fixtures/fileDefinition/prefix: Expected string length greater or equal to 1, got ""',
    );
    expect(refusal({ fixtures: { revision: { target: ["prod"] } } })).toContain(
      '/fixtures/revision/target: Expected string, got ["prod"]',
    );
    expect(refusal({ fixtures: { purchaseEvent: true } })).toContain(
      "/fixtures/purchaseEvent: Expected string, got true",
    );
    expect(refusal({ fixtures: { otherAccountProfile: null } })).toContain(
      "/fixtures/otherAccountProfile: Expected string, got null",
    );
  });

  it("revision files must be a non-empty list of names", () => {
    expect(refusal({ fixtures: { revision: { files: "utag.js" } } })).toContain(
      '/fixtures/revision/files: Expected array, got "utag.js"',
    );
    expect(refusal({ fixtures: { revision: { files: [] } } })).toContain(
      "/fixtures/revision/files: Expected array length to be greater or equal to 1, got []",
    );
  });

  it("an attribute is given whole: without its name, or a visitor ID attribute without its parameter, it is refused", () => {
    expect(refusal({ fixtures: { badge: { id: 5205 } } })).toContain(
      "/fixtures/badge/name: Expected required property",
    );
    expect(refusal({ fixtures: { visitorIdAttributes: { email: { id: 5120, name: "email_address" } } } })).toContain(
      "/fixtures/visitorIdAttributes/email/parameter: Expected required property",
    );
  });

  it("a misspelt fixture or group member is refused rather than silently left at the demo's value", () => {
    expect(refusal({ fixtures: { engine: { names: "x" } } })).toContain("/fixtures/engine: Unexpected property");
    expect(refusal({ fixtures: { engines: { enabled: "x" } } })).toContain(
      "/fixtures/engines/enabled: Unexpected property",
    );
  });
});

describe("the JSON Schema of a target file (conformance/target.schema.json)", () => {
  const shipped = readFileSync(join(import.meta.dir, "..", "conformance", "target.schema.json"), "utf8");

  it("is the schema target files are checked with, from which their TypeScript type is derived (bun tools/sync-target-schema.ts)", () => {
    expect(shipped).toBe(`${JSON.stringify(targetFileJsonSchema(), null, 2)}\n`);
    expect(fixturesMatch.every(Boolean)).toBe(true);
  });

  it("names every fixture of TargetFixtures, each group's members too, and refuses what it does not name", () => {
    const schema = JSON.parse(shipped) as {
      additionalProperties: boolean;
      properties: Record<string, { properties?: Record<string, { properties?: Record<string, unknown> }> }>;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties).sort()).toEqual(
      ["$schema", "name", "base", "collect", "moments", "adminToken", "fixtures"].sort(),
    );
    const fixtures = schema.properties.fixtures?.properties ?? {};
    expect(Object.keys(fixtures).sort()).toEqual(Object.keys(svcHubDemoFixtures).sort());
    for (const group of ["attributes", "visitorIdAttributes", "engines", "fileDefinition", "revision"] as const)
      expect(Object.keys(fixtures[group]?.properties ?? {}).sort()).toEqual(
        Object.keys(svcHubDemoFixtures[group]).sort(),
      );
  });

  it("is named by the shipped target file, which it accepts", () => {
    const path = join(import.meta.dir, "..", "conformance", "targets", "svc-hub-demo.json");
    expect((JSON.parse(readFileSync(path, "utf8")) as { $schema?: string }).$schema).toBe("../target.schema.json");
    expect(() => readTargetFile(path)).not.toThrow();
  });
});

describe("the file definition's date format", () => {
  it("writes a time with the letters yyyy, MM, dd, HH, mm, ss, SSS and quoted text", () => {
    const time = Date.UTC(2024, 0, 31, 9, 30, 5, 7);
    expect(formatDate(time, "yyyy-MM-dd HH:mm")).toBe("2024-01-31 09:30");
    expect(formatDate(time, "dd.MM.yyyy HH:mm:ss.SSS")).toBe("31.01.2024 09:30:05.007");
    expect(formatDate(time, "yyyy-MM-dd'T'HH:mm'Z'")).toBe("2024-01-31T09:30Z");
  });
});
