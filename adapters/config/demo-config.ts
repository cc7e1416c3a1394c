/** DEC-OPS-03: without a configuration file the server starts with the demo tenants of demo.md, from this file. */
import { fileURLToPath } from "node:url";

export const demoConfigPath = fileURLToPath(new URL("./demo.config.json", import.meta.url));

/** The same tenants in YAML (the form docs/demo-tenants.md shows); a test proves both load to the same configuration. */
export const demoYamlConfigPath = fileURLToPath(new URL("./demo.config.yaml", import.meta.url));
