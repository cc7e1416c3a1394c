/**
 * core/index.ts is the core's public API for a host, grouped by area: one namespace per area, holding what the
 * area's door (its index.ts) offers, and Result and the machine kernel flat. The door is the one list of an area's
 * names. These tests keep it so: no `export *` in a door lets a helper through unseen, every name listed is
 * declared where the list says, and a door offers only what code outside its area uses (the rest stays inside).
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import * as core from "./index.ts";

const coreDir = dirname(fileURLToPath(import.meta.url));

interface Reexport {
  readonly name: string;
  readonly typeOnly: boolean;
  /** The module it comes from, absolute. */
  readonly from: string;
}

/** Source text without comments, so that an example in a doc comment is not taken for an export. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\/|(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

function read(file: string): string {
  return withoutComments(readFileSync(file, "utf8"));
}

/** The `export { a, type B } from "./x.ts"` statements of a module, one entry per name. */
function reexportsOf(file: string): Reexport[] {
  const found: Reexport[] = [];
  for (const match of read(file).matchAll(/\bexport\s+(type\s+)?\{([^}]*)\}\s*from\s*["']([^"']+)["']/g)) {
    const from = resolve(dirname(file), match[3] as string);
    for (const item of (match[2] as string).split(",")) {
      const text = item.trim();
      if (text === "") continue;
      const typeOnly = match[1] !== undefined || text.startsWith("type ");
      found.push({ name: text.replace(/^type\s+/, ""), typeOnly, from });
    }
  }
  return found;
}

/** Whether `file` declares `name` as an export, directly or through a named re-export. */
function declares(file: string, name: string, seen: Set<string> = new Set()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const kind = "function\\*?|const|let|class|abstract\\s+class|interface|type|enum";
  const declaration = new RegExp(`\\bexport\\s+(?:declare\\s+)?(?:async\\s+)?(?:${kind})\\s+${name}\\b`);
  if (declaration.test(read(file))) return true;
  const onward = reexportsOf(file).find((entry) => entry.name === name);
  return onward !== undefined && declares(onward.from, name, seen);
}

const indexFile = join(coreDir, "index.ts");
const repoDir = resolve(coreDir, "..");
/** The areas: the folders of the core's own code (a folder of tests alone would offer nothing and have no door). */
const isTestCode = (name: string) => /\.test\.ts$/.test(name);
const areas = readdirSync(coreDir).filter(
  (name) =>
    statSync(join(coreDir, name)).isDirectory() && !readdirSync(join(coreDir, name)).every((file) => isTestCode(file)),
);
/** The namespace of an area in the public API: its folder's name in camel case (testing-tools: testingTools). */
const namespaceOf = (area: string) => area.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
const doorOf = (area: string) => join(coreDir, area, "index.ts");
/** What every area speaks, exported flat beside the areas. */
const kernel = [join(coreDir, "result.ts"), join(coreDir, "machine.ts")];
const flat = reexportsOf(indexFile);

/** Every source file of the repository outside node_modules, dist and test output, relative to it. */
function sourceFiles(dir = repoDir): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith(".") || ["node_modules", "dist", "test-output"].includes(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (/\.(ts|tsx|mts|mjs)$/.test(name)) found.push(path);
  }
  return found;
}

/** The names each area's door is asked for from outside the area: imported from the door, or read off its namespace. */
function namesUsedOutside(): Map<string, Set<string>> {
  const used = new Map(areas.map((area) => [area, new Set<string>()]));
  for (const file of sourceFiles()) {
    if (file === indexFile) continue;
    const text = read(file);
    for (const match of text.matchAll(/\b(?:import|export)(?:\s+type)?\s*\{([^}]*)\}\s*from\s*["']([^"']+)["']/g)) {
      const from = resolve(dirname(file), match[2] as string);
      const area = areas.find((name) => from === doorOf(name));
      if (area === undefined || file.startsWith(join(coreDir, area) + sep)) continue;
      for (const item of (match[1] as string).split(",")) {
        const name = item
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)[0] as string;
        if (name !== "") used.get(area)?.add(name);
      }
    }
    if (!/from\s*["'](?:svc-hub\/core|[./]*core\/index\.ts|\.\/index\.ts)["']/.test(text)) continue;
    for (const area of areas) {
      for (const match of text.matchAll(new RegExp(`\\b${namespaceOf(area)}\\.(\\w+)`, "g"))) {
        used.get(area)?.add(match[1] as string);
      }
    }
  }
  return used;
}

describe("core's public API (core/index.ts)", () => {
  it("is grouped by area: one namespace per area's door, and only Result and the machine kernel flat", () => {
    const namespaces = [...read(indexFile).matchAll(/\bexport\s+\*\s+as\s+(\w+)\s+from\s*["']([^"']+)["']/g)].map(
      (match) => [match[1], resolve(coreDir, match[2] as string)],
    );
    assert.deepEqual(
      namespaces.sort(),
      areas.map((area) => [namespaceOf(area), doorOf(area)]).sort(),
      "core/index.ts must name each area's door as a namespace, and nothing else",
    );
    for (const entry of flat) assert.ok(kernel.includes(entry.from), `${entry.name} is exported flat`);
    const statements = read(indexFile).match(/\bexport\b/g) ?? [];
    assert.equal(statements.length, namespaces.length + new Set(flat.map((entry) => entry.from)).size);
  });

  it("no area's door uses `export *`: every name it offers is listed", () => {
    for (const area of areas) assert.doesNotMatch(read(doorOf(area)), /\bexport\s+(type\s+)?\*/, `${area}/index.ts`);
  });

  it("every name offered resolves: declared where its list says, and a value at run time unless a type", () => {
    const api = core as unknown as Record<string, Record<string, unknown>>;
    for (const entry of flat) {
      assert.ok(declares(entry.from, entry.name), `${entry.name} is not exported by ${relative(coreDir, entry.from)}`);
      if (!entry.typeOnly) assert.notEqual((core as Record<string, unknown>)[entry.name], undefined, entry.name);
    }
    for (const area of areas) {
      const offered = reexportsOf(doorOf(area));
      for (const entry of offered) {
        assert.ok(
          declares(entry.from, entry.name),
          `${area}: ${entry.name} is not exported by ${relative(coreDir, entry.from)}`,
        );
      }
      const values = offered.filter((entry) => !entry.typeOnly).map((entry) => entry.name);
      assert.deepEqual(Object.keys(api[namespaceOf(area)] ?? {}).sort(), values.sort(), `core.${namespaceOf(area)}`);
    }
    const flatValues = flat.filter((entry) => !entry.typeOnly).map((entry) => entry.name);
    assert.deepEqual(Object.keys(core).sort(), [...flatValues, ...areas.map(namespaceOf)].sort());
  });

  it("a door offers no value that nothing outside its area uses: the rest stays inside the area", () => {
    const used = namesUsedOutside();
    for (const area of areas) {
      const unused = reexportsOf(doorOf(area))
        .filter((entry) => !entry.typeOnly && !used.get(area)?.has(entry.name))
        .map((entry) => entry.name);
      assert.deepEqual(unused, [], `${area}/index.ts offers what only ${area}/ uses`);
    }
  });
});
