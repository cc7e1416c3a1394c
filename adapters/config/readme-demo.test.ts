import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { demoYamlConfigPath } from "./demo-config.ts";

describe("the README", () => {
  it("shows the demo configuration exactly as the server loads it", () => {
    const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("### The demo as a configuration file"));
    const block = /```yaml\n([\s\S]*?)```\n/.exec(section)?.[1];
    expect(block).toBe(readFileSync(demoYamlConfigPath, "utf8"));
  });
});
