/**
 * `npm run config-schema`: writes svc.config.schema.json, the JSON Schema of svc-hub's configuration file, from
 * the TypeBox schema the loader validates with (adapters/config/config.schema.ts). It ships in the package, so
 * a configuration file that names it in `$schema` gets completion and checking in an editor:
 * `"$schema": "./node_modules/svc-hub/svc.config.schema.json"` in a project that installed svc-hub. A test
 * (tools/config-schema.test.ts) fails when the committed file is not what this writes.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigFileSchema } from "../adapters/config/config.schema.ts";

export const configSchemaPath = resolve(import.meta.dir, "..", "svc.config.schema.json");

/** The configuration file's JSON Schema as text (TypeBox's schema without its symbols, with its draft named). */
export function configSchemaText(): string {
  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "svc-hub configuration",
    description:
      "The configuration file of svc-hub (JSON or YAML): tenants, users, API keys, limits, timing and revisions. Unknown properties are refused; the loader also checks references and uniqueness, which a schema cannot say.",
    ...JSON.parse(JSON.stringify(ConfigFileSchema)),
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (import.meta.main) {
  writeFileSync(configSchemaPath, configSchemaText());
  process.stdout.write(`wrote ${configSchemaPath}\n`);
}
