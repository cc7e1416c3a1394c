import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { demoYamlConfigPath } from "./demo-config.ts";

describe("docs/demo-tenants.md", () => {
  it("shows the demo configuration exactly as the server loads it", () => {
    const page = readFileSync(join(import.meta.dir, "..", "..", "docs", "demo-tenants.md"), "utf8");
    const start = page.indexOf("## The demo as a configuration file");
    expect(start).toBeGreaterThan(-1);
    const block = /```yaml\n([\s\S]*?)```\n/.exec(page.slice(start))?.[1];
    expect(block).toBe(readFileSync(demoYamlConfigPath, "utf8"));
  });
});
