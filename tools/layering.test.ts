/**
 * The edges between the tree's folders, and the map of them in CONTRIBUTING.md (issue 42, "stray edges"):
 * - code outside core/ imports an area of the core through its door (core/<area>/index.ts), never one of its files;
 * - testing/ is test support the adapters' tests import, so it imports no adapter back, and neither testing/ nor
 *   tools/ climbs into the conformance plug-in of svc-hub (conformance/implementations/);
 * - CONTRIBUTING's layout map names every top-level folder and every folder of adapters/ and core/, and nothing
 *   that does not exist.
 */
import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const skipped = new Set(["node_modules", "dist", "test-output"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name.startsWith(".") || skipped.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|mjs)$/.test(name) ? [path] : [];
  });
}

/** Each import of `file`, as the repository-relative path it names (imports of packages left out). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g)];
  return specifiers.map((match) => relative(root, resolve(dirname(file), match[1] as string)));
}

/**
 * The tree's files as git sees them (tracked, or new and not ignored), so that a folder a run leaves behind and
 * git ignores (a conformance report, a cache) is not taken for a folder of the tree; null outside a git checkout.
 */
const treeFiles = (() => {
  const listed = Bun.spawnSync(["git", "ls-files", "--cached", "--others", "--exclude-standard"], { cwd: root });
  return listed.success ? listed.stdout.toString().split("\n").filter(Boolean) : null;
})();

/** The folders directly in `dir` (repository-relative, "." for the top) that hold a file of the tree. */
function folders(dir: string): string[] {
  if (treeFiles === null)
    return readdirSync(join(root, dir)).filter(
      (name) => !name.startsWith(".") && !skipped.has(name) && statSync(join(root, dir, name)).isDirectory(),
    );
  const prefix = dir === "." ? "" : `${dir}/`;
  const names = treeFiles
    .filter((path) => path.startsWith(prefix))
    .map((path) => path.slice(prefix.length).split("/"))
    .filter((parts) => parts.length > 1 && !(parts[0] as string).startsWith("."))
    .map((parts) => parts[0] as string);
  return [...new Set(names)];
}

describe("the edges between the tree's folders", () => {
  it("outside core/, the core is imported through an area's door, never one of its files", () => {
    const outside = folders(".").filter((name) => name !== "core");
    const offending = outside.flatMap((folder) =>
      sourceFiles(join(root, folder)).flatMap((file) =>
        importsOf(file)
          .filter((path) => /^core\/[^/]+\/(?!index\.ts$)[^/]+$/.test(path))
          .map((path) => `${relative(root, file)} imports ${path}`),
      ),
    );
    expect(offending).toEqual([]);
  });

  it("testing/ imports no adapter, and neither testing/ nor tools/ the conformance plug-in", () => {
    const offending = ["testing", "tools"].flatMap((folder) =>
      sourceFiles(join(root, folder)).flatMap((file) =>
        importsOf(file)
          .filter(
            (path) =>
              path.startsWith("conformance/implementations/") || (folder === "testing" && path.startsWith("adapters/")),
          )
          .map((path) => `${relative(root, file)} imports ${path}`),
      ),
    );
    expect(offending).toEqual([]);
  });
});

describe("CONTRIBUTING.md's layout map", () => {
  const text = readFileSync(join(root, "CONTRIBUTING.md"), "utf8");
  const map = /## Layout[\s\S]*?```\n([\s\S]*?)```/.exec(text)?.[1] ?? "";
  /** The folders a line of the map names: the `name/` words at its start, before the description. */
  const named = (line: string) =>
    (/^\s*((?:[\w.-]+\/,?\s)+)/.exec(`${line} `)?.[1] ?? "").match(/[\w.-]+(?=\/)/g) ?? [];
  /** The folders the map names at the top (no indent), and under `parent/` (indented by two). */
  function namedIn(parent: string | null): string[] {
    const found: string[] = [];
    let under: string | null = null;
    for (const line of map.split("\n")) {
      if (/^\S/.test(line)) under = named(line)[0] ?? null;
      if (parent === null ? /^\S/.test(line) : under === parent && /^ {2}\S/.test(line)) found.push(...named(line));
    }
    return found.sort();
  }

  it("names every top-level folder, and nothing else", () => {
    expect(map).not.toBe("");
    expect(namedIn(null)).toEqual(folders(".").sort());
  });

  it("names every folder of adapters/ and of core/, and nothing else", () => {
    expect(namedIn("adapters")).toEqual(folders("adapters").sort());
    expect(namedIn("core")).toEqual(folders("core").sort());
  });
});
