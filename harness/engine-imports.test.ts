/**
 * The conformance engine is a product of its own: what `harness/cli.ts` and `harness/index.ts` ("svc-hub/harness")
 * load by static imports holds no implementation (adapters/, core/) and no scenarios (conformance/). The CLI
 * imports the scenarios and an in-process implementation dynamically, by the paths it is given, so that running it
 * against another implementation loads nothing of svc-hub's server.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const root = resolve(import.meta.dir, "..");
const entries = ["harness/cli.ts", "harness/index.ts"];
/** The packages the engine may import: Node's modules, fast-check (properties) and TypeBox (file checks). */
const allowedPackages = [/^node:/, /^fast-check$/, /^@sinclair\/typebox(\/value)?$/];

/** Source text without comments, so that an example in a doc comment is not taken for an import. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\/|(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** The specifiers of a module's static imports and re-exports (`import()` calls are left out: they load on demand). */
function staticImportSpecifiers(source: string): string[] {
  const text = withoutComments(source);
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[\w*{}\s,$]+?\s+from\s+["']([^"']+)["']/g,
    /\bimport\s+["']([^"']+)["']/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1] as string));
}

/** Every module reachable from the entries by static imports: files (relative to the repository) and packages. */
function importGraph(entryFiles: readonly string[]): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = entryFiles.map((entry) => join(root, entry));
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    if (!/\.(ts|mts|js|mjs)$/.test(file)) continue;
    for (const specifier of staticImportSpecifiers(readFileSync(file, "utf8"))) {
      if (!specifier.startsWith(".")) {
        packages.add(specifier);
        continue;
      }
      const target = resolve(dirname(file), specifier);
      if (!existsSync(target)) throw new Error(`${relative(root, file)} imports ${specifier}, which is not a file`);
      pending.push(target);
    }
  }
  return { files: [...files].map((file) => relative(root, file)).sort(), packages: [...packages].sort() };
}

describe("the conformance engine's imports", () => {
  const graph = importGraph(entries);

  it("reach no module of adapters/, core/ or conformance/: only the engine's own (and the package's version)", () => {
    const outside = graph.files.filter((file) => !file.startsWith(`harness${sep}`) && file !== "package.json");
    expect(outside).toEqual([]);
    expect(graph.files.filter((file) => /^(adapters|core|conformance)[/\\]/.test(file))).toEqual([]);
    // The walk did reach the engine's modules (a walker that found nothing would pass the checks above).
    expect(graph.files).toContain(join("harness", "runner.ts"));
    expect(graph.files).toContain(join("harness", "modules.ts"));
    expect(graph.files).toContain(join("harness", "capabilities.ts"));
  });

  it("reach no package but Node's, fast-check and TypeBox: not Elysia, libSQL or anything else of the server", () => {
    expect(graph.packages.filter((name) => !allowedPackages.some((allowed) => allowed.test(name)))).toEqual([]);
    expect(graph.packages).toContain("fast-check");
  });

  it("the walker reads static imports and re-exports of every form, but neither comments nor import() calls", () => {
    const source = [
      'import { a,\n  b } from "./one.ts";',
      'import type { C } from "./two.ts";',
      'import * as d from "node:fs";',
      'import json from "../package.json" with { type: "json" };',
      'export * from "./three.ts";',
      'export { e } from "./four.ts";',
      'import "./side-effect.ts";',
      '// import { x } from "../adapters/commented.ts";',
      '/** import { y } from "../core/documented.ts"; */',
      'const later = await import("../conformance/index.ts");',
    ].join("\n");
    expect(staticImportSpecifiers(source).sort()).toEqual(
      ["./one.ts", "./two.ts", "node:fs", "../package.json", "./three.ts", "./four.ts", "./side-effect.ts"].sort(),
    );
  });
});
