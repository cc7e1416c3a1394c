/**
 * core/ is runtime-neutral: its modules import nothing but other core/ modules and the few packages named in
 * corePackages (tests may also use the runtime-neutral test libraries node:test, node:assert and fast-check, and
 * the in-memory store, the use cases' stores), and they read no clock, randomness or environment. The in-memory store is runtime-neutral too: it
 * imports nothing but the core and itself, and reaches for no runtime's own API. This test fails the build the
 * moment either stops being true.
 *
 * The core's tests may also import testing/, the test support they share with the adapters' tests (fakes,
 * fixtures, scenarios run on two stores). That folder is test code, outside the core and the compiled package:
 * it may read the host's timers and clock, as a fake of the host's event loop does, but it imports only the
 * core, the in-memory store, itself and the test libraries, so that Deno runs the core's tests as Bun does.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const coreDir = dirname(fileURLToPath(import.meta.url));
const memoryStoreDir = resolve(coreDir, "..", "adapters", "store-memory");
const testingDir = resolve(coreDir, "..", "testing");
const within = (dir: string, target: string) => target === dir || target.startsWith(dir + sep);
const allowedInTests = new Set([
  "node:test",
  "node:assert",
  "node:assert/strict",
  "fast-check",
  "node:fs",
  "node:path",
  "node:url",
]);
/**
 * The packages the core's own code may import: plain functions on strings that run wherever JavaScript does and
 * have no dependencies of their own, doing what the convention leaves to a library (docs/dependencies.md).
 * `cookie` reads the Cookie header (core/visitors/cookies.rules.ts).
 */
const corePackages: ReadonlySet<string> = new Set(["cookie"]);
/** A test file, or a module of the shared test support (testing/): test code, which may use what tests use. */
function isTestCode(path: string): boolean {
  return /\.test\.ts$/.test(path) || within(testingDir, path);
}
const impure =
  /\bDate\.now\(|new Date\(\)|Math\.random\(|crypto\.randomUUID|crypto\.getRandomValues|process\.env|Deno\.|Bun\.|globalThis\.fetch|\bfetch\(/;

/** Source text without comments, so that an example in a doc comment is not taken for an import. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\/|(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

function listSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listSources(path);
    return /\.(ts|tsx|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** Every module specifier of a file: static imports and re-exports, dynamic imports and require calls. */
function importSpecifiers(source: string): string[] {
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1] as string));
}

/** What a core file's imports break of the rules: one line a specifier that reaches outside what it may. */
function importProblems(file: string, source: string): string[] {
  const name = relative(coreDir, file);
  const isTest = isTestCode(file);
  return importSpecifiers(source).flatMap((specifier) => {
    if (specifier.startsWith(".")) {
      const target = resolve(dirname(file), specifier);
      return within(coreDir, target) || (isTest && (within(memoryStoreDir, target) || within(testingDir, target)))
        ? []
        : [`${name} imports ${specifier}, outside core/`];
    }
    return corePackages.has(specifier) || (isTest && allowedInTests.has(specifier))
      ? []
      : [`${name} imports "${specifier}"; core/ may import only core/ modules`];
  });
}

/** The clock, randomness or environment a core file that is not test code reads. */
function impurityProblems(file: string, source: string): string[] {
  const found = source.match(impure);
  return found === null
    ? []
    : [`${relative(coreDir, file)} uses ${found[0]}; pass time, ids and randomness in as arguments`];
}

/** Everything a core file (its path and source) breaks of the core's rules; test code may read clocks. */
function purityProblems(file: string, source: string): string[] {
  const code = withoutComments(source);
  return [...importProblems(file, code), ...(isTestCode(file) ? [] : impurityProblems(file, code))];
}

describe("core purity", () => {
  const files = [...listSources(coreDir), ...listSources(testingDir)];

  it("finds the core sources", () => {
    assert.ok(files.length > 5, `only ${files.length} files under ${coreDir}`);
  });

  it("the import scanner sees every form of import", () => {
    // Written with IMPORT in place of the keyword so that this file's own scan does not see the sample.
    const sample =
      `IMPORT a from "elysia";\nIMPORT { b } from 'drizzle-orm';\nexport * from "bun:sqlite";\nIMPORT type { C } from "../adapters/x.ts";\nconst d = await IMPORT("node:fs");\nconst e = REQUIRE("os");\nIMPORT "side-effect";`
        .replaceAll("IMPORT", "import")
        .replaceAll("REQUIRE", "require");
    assert.deepEqual(importSpecifiers(sample), [
      "elysia",
      "drizzle-orm",
      "bun:sqlite",
      "../adapters/x.ts",
      "side-effect",
      "node:fs",
      "os",
    ]);
  });

  it("tells test code from the core's own code, and holds the core's own code to the rules", () => {
    // Written with IMPORT in place of the keyword so that this file's own scan does not see the samples.
    const importing = (specifier: string) => `IMPORT { x } from "${specifier}";`.replaceAll("IMPORT", "import");
    const at = (name: string) => join(coreDir, "area", name);
    assert.equal(isTestCode(at("a.test.ts")), true);
    assert.equal(isTestCode(join(testingDir, "area", "a.ts")), true);
    assert.equal(isTestCode(at("a.ts")), false);
    assert.equal(isTestCode(at("test.ts")), false);
    assert.deepEqual(purityProblems(at("a.ts"), importing("../b.ts")), []);
    assert.equal(purityProblems(at("a.ts"), importing("../../adapters/runtime/logger.ts")).length, 1);
    assert.equal(purityProblems(at("a.ts"), importing("../../adapters/store-memory/memory.stores.ts")).length, 1);
    assert.equal(purityProblems(at("a.ts"), importing("node:assert/strict")).length, 1);
    assert.equal(purityProblems(at("a.ts"), importing("../../testing/fakes.ts")).length, 1);
    assert.equal(purityProblems(at("a.ts"), "export const now = () => Date.now();").length, 1);
    assert.deepEqual(purityProblems(at("a.ts"), importing("cookie")), []);
    assert.equal(purityProblems(at("a.ts"), importing("cookie-parser")).length, 1);
    assert.deepEqual(purityProblems(at("a.test.ts"), importing("../../testing/fakes.ts")), []);
    for (const test of [at("a.test.ts"), join(testingDir, "area", "a.ts")]) {
      assert.deepEqual(purityProblems(test, importing("../../adapters/store-memory/memory.stores.ts")), []);
      assert.deepEqual(purityProblems(test, importing("node:assert/strict")), []);
      assert.deepEqual(purityProblems(test, "export const wait = () => new Promise((r) => setTimeout(r, 1));"), []);
      assert.equal(purityProblems(test, importing("../../adapters/runtime/logger.ts")).length, 1);
      assert.equal(purityProblems(test, importing("bun:test")).length, 1);
    }
  });

  it("every package the core may import has no dependencies of its own and is one svc-hub depends on", () => {
    const root = resolve(coreDir, "..");
    const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    for (const name of corePackages) {
      assert.ok(own.dependencies[name], `${name} is not in package.json's dependencies`);
      const manifest = JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as {
        dependencies?: Record<string, string>;
      };
      assert.deepEqual(Object.keys(manifest.dependencies ?? {}), [], `${name} has dependencies of its own`);
    }
  });

  for (const file of files) {
    const name = relative(coreDir, file);
    const source = withoutComments(readFileSync(file, "utf8"));
    const allowed = isTestCode(file) ? "the core, the in-memory store, testing/ and the test libraries" : "core/";
    it(`${name} imports only from ${allowed}`, () => {
      assert.deepEqual(importProblems(file, source), []);
    });
    if (!isTestCode(file)) {
      it(`${name} reads no clock, randomness or environment`, () => {
        assert.deepEqual(impurityProblems(file, source), []);
      });
    }
  }
});

describe("the in-memory store's neutrality", () => {
  const files = listSources(memoryStoreDir).filter((file) => !isTestCode(file));
  const runtimeApi = /\b(?:Bun|Deno|process|Buffer|require)\b|\bsetImmediate\(/;

  it("finds the in-memory store's sources", () => {
    assert.ok(files.length > 3, `only ${files.length} files under ${memoryStoreDir}`);
  });

  for (const file of files) {
    const name = relative(memoryStoreDir, file);
    it(`adapters/store-memory/${name} imports only the core and itself, and no runtime's own API`, () => {
      const source = withoutComments(readFileSync(file, "utf8"));
      for (const specifier of importSpecifiers(source)) {
        const target = resolve(dirname(file), specifier);
        assert.ok(
          specifier.startsWith(".") && (within(coreDir, target) || within(memoryStoreDir, target)),
          `${name} imports "${specifier}"; the in-memory store may import only the core and itself`,
        );
      }
      const found = source.match(runtimeApi);
      assert.equal(found, null, `${name} uses ${found?.[0]}, which not every runtime has`);
    });
  }
});
