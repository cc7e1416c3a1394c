import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { loadYamlParser, parseConfigSyntax } from "../adapters/config/config.syntax.ts";
import { configSchemaPath, configSchemaText } from "./config-schema.ts";

// parseConfigSyntax reads YAML once its parser is loaded (loadConfigFile loads it).
await loadYamlParser();

const root = resolve(import.meta.dir, "..");

/** The shipped schema, compiled by a standard JSON Schema validator, as an editor's would read it. */
function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  return ajv.compile(JSON.parse(readFileSync(configSchemaPath, "utf8")));
}

describe("svc.config.schema.json, the configuration file's JSON Schema", () => {
  it("is what `npm run config-schema` writes from the loader's own schema (run it after changing the schema)", () => {
    expect(readFileSync(configSchemaPath, "utf8")).toBe(configSchemaText());
  });

  it("takes the demo configuration, in JSON and in YAML, with a standard validator", () => {
    const validate = validator();
    for (const file of ["demo.config.json", "demo.config.yaml"]) {
      const text = readFileSync(join(root, "adapters", "config", file), "utf8");
      // Read as the loader reads it (YAML merge keys applied), then checked by the schema alone.
      const read = parseConfigSyntax(text, file.endsWith(".json") ? "json" : "yaml");
      if (!read.ok) throw new Error(`${file} does not parse`);
      const config = read.value;
      expect({ file, valid: validate(config), errors: validate.errors ?? null }).toEqual({
        file,
        valid: true,
        errors: null,
      });
    }
  });

  it("refuses what the loader refuses: an unknown property, a timing preset that does not exist", () => {
    const validate = validator();
    expect(validate({ timing: "fast", colour: "blue" })).toBe(false);
    expect(validate.errors?.[0]?.keyword).toBe("additionalProperties");
    expect(validate({ timing: "slow" })).toBe(false);
    expect(validate({ $schema: "./node_modules/svc-hub/svc.config.schema.json", timing: "instant" })).toBe(true);
  });
});
