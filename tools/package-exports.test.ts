import { describe, expect, it } from "bun:test";
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  private?: boolean;
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; default: string }>;
};

describe("the package's exports", () => {
  it('other hosts import the core as "svc-hub/core"', async () => {
    const core = await import("svc-hub/core");
    expect(core.errors.managementError("accountNotFound")).toMatchObject({
      status: 404,
      returnCode: 1240,
      message: "Account was not found",
    });
    expect(typeof core.ok).toBe("function");
  });

  it('and the conformance engine as "svc-hub/harness"', async () => {
    const harness = await import("svc-hub/harness");
    expect(typeof harness.runScenarios).toBe("function");
    expect(typeof harness.urlTarget).toBe("function");
    expect(typeof harness.loadScenarioModule).toBe("function");
  });

  it('and its scenarios as "svc-hub/conformance": every scenario, with the catalogue they are reported against', async () => {
    const conformance = await import("svc-hub/conformance");
    expect(conformance.allScenarios.length).toBeGreaterThan(150);
    expect(conformance.clauseCatalogue.some((entry) => entry.id === "SES-01")).toBe(true);
  });

  it('test setups import the launcher as "svc-hub/launcher": plain JavaScript for Node, with its types beside it', async () => {
    const launcher = await import("svc-hub/launcher");
    expect(typeof launcher.startSvcHub).toBe("function");
    expect(launcher.SvcHubStartError.prototype).toBeInstanceOf(Error);
    const entry = manifest.exports["./launcher"];
    if (typeof entry !== "object") throw new Error('"./launcher" names no types');
    expect(entry.default).toEndWith(".mjs");
    expect(existsSync(join(root, entry.types))).toBe(true);
    // What a Node program would get: the .d.mts describes the file it runs.
    expect(readFileSync(join(root, entry.types), "utf8")).toContain("export declare function startSvcHub(");
  });

  it('and its vitest global setup as "svc-hub/launcher/vitest": a default export, and createSvcHubSetup for options', async () => {
    const setup = await import("svc-hub/launcher/vitest");
    expect(typeof setup.default).toBe("function");
    expect(typeof setup.createSvcHubSetup).toBe("function");
    const entry = manifest.exports["./launcher/vitest"];
    if (typeof entry !== "object") throw new Error('"./launcher/vitest" names no types');
    expect(readFileSync(join(root, entry.types), "utf8")).toContain("export declare function createSvcHubSetup(");
  });

  it('test code imports the typed client as "svc-hub/client": its TypeScript under Bun, compiled JavaScript elsewhere', async () => {
    const client = await import("svc-hub/client");
    expect(typeof client.createSvcHubClient).toBe("function");
    const entry = manifest.exports["./client"] as unknown as Record<string, string>;
    expect(entry.bun).toBe("./client/index.ts");
    expect(entry.default).toBe("./dist/client/index.js");
    expect(entry.types).toBe("./dist/client/index.d.ts");
  });

  it("\"svc-hub\" is the package's command: an executable Node script, which npm links into the project's node_modules/.bin", () => {
    const bin = join(root, manifest.bin["svc-hub"] as string);
    expect(readFileSync(bin, "utf8")).toStartWith("#!/usr/bin/env node\n");
    expect(() => accessSync(bin, constants.X_OK)).not.toThrow();
  });

  it('"svc-hub-conformance" runs the conformance suite: an executable Node script that hands over to Bun', () => {
    const bin = join(root, manifest.bin["svc-hub-conformance"] as string);
    expect(readFileSync(bin, "utf8")).toStartWith("#!/usr/bin/env node\n");
    expect(readFileSync(bin, "utf8")).toContain('handOverToBun("svc-hub-conformance", "harness/cli.ts"');
    expect(() => accessSync(bin, constants.X_OK)).not.toThrow();
  });

  it("stays private: installed from git or a tarball, never published to a registry by mistake", () => {
    expect(manifest.private).toBe(true);
  });
});
