/** DEC-OPS-03: without a configuration file the server starts with the demo tenants of demo.md, from this file. */
import { packagedFilePath } from "../runtime/packaged-files.ts";

export const demoConfigPath = packagedFilePath("adapters/config/demo.config.json");

/** The same tenants in YAML (the form docs/demo-tenants.md shows); a test proves both load to the same configuration. */
export const demoYamlConfigPath = packagedFilePath("adapters/config/demo.config.yaml");
