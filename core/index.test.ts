/**
 * core/index.ts is the core's public API: an explicit list of names, each area's door (its index.ts) listing
 * what the area offers. These tests keep the lists honest: no `export *` lets a helper through unseen, and
 * every name listed is declared where the list says it is.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
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
/** The areas: the folders of the core's own code (a folder of tests alone would offer nothing and have no door). */
const isTestCode = (name: string) => /\.test\.ts$/.test(name);
const areas = readdirSync(coreDir).filter(
  (name) =>
    statSync(join(coreDir, name)).isDirectory() && !readdirSync(join(coreDir, name)).every((file) => isTestCode(file)),
);
const listed = reexportsOf(indexFile);

describe("core's public API (core/index.ts)", () => {
  it("uses no `export *`, nor does any area's index: every public name is listed", () => {
    for (const file of [indexFile, ...areas.map((area) => join(coreDir, area, "index.ts"))]) {
      assert.doesNotMatch(read(file), /\bexport\s+(type\s+)?\*/, `${relative(coreDir, file)} uses export *`);
    }
  });

  it("has nothing but named re-exports, each from a module inside core/", () => {
    const statements = read(indexFile).match(/\bexport\b/g) ?? [];
    const fromStatements = read(indexFile).match(/\bexport\s+(type\s+)?\{[^}]*\}\s*from\s*["'][^"']+["']/g) ?? [];
    assert.equal(statements.length, fromStatements.length, "core/index.ts declares something of its own");
    assert.ok(listed.length > 100, `only ${listed.length} names listed`);
    for (const entry of listed) assert.ok(entry.from.startsWith(coreDir), `${entry.name} comes from outside core/`);
  });

  it("every area has a door (index.ts) and core/index.ts lists each of them", () => {
    const sources = new Set(listed.map((entry) => relative(coreDir, entry.from)));
    for (const area of areas) assert.ok(sources.has(join(area, "index.ts")), `core/index.ts lists nothing of ${area}/`);
  });

  it("lists every name each area's door offers, and only those", () => {
    for (const area of areas) {
      const door = join(coreDir, area, "index.ts");
      const offered = reexportsOf(door)
        .map((entry) => entry.name)
        .sort();
      const taken = listed
        .filter((entry) => entry.from === door)
        .map((entry) => entry.name)
        .sort();
      assert.deepEqual(taken, offered, `core/index.ts and ${area}/index.ts differ`);
    }
  });

  it("every name it exports resolves: declared where the list says, and a value at run time unless a type", () => {
    const names = new Set<string>();
    for (const entry of listed) {
      assert.ok(!names.has(entry.name), `${entry.name} is exported twice`);
      names.add(entry.name);
      assert.ok(declares(entry.from, entry.name), `${entry.name} is not exported by ${relative(coreDir, entry.from)}`);
      if (!entry.typeOnly) {
        assert.notEqual(
          (core as Record<string, unknown>)[entry.name],
          undefined,
          `${entry.name} is undefined at run time`,
        );
      }
    }
  });

  it("exports at run time exactly the values it lists", () => {
    const values = listed
      .filter((entry) => !entry.typeOnly)
      .map((entry) => entry.name)
      .sort();
    assert.deepEqual(Object.keys(core).sort(), values);
  });
});
