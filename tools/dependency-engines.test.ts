import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Issue 41: `npm install` on a fresh clone prints no EBADENGINE warning on Node 20, the oldest Node that
 * svc-hub's `engines` takes. npm prints one for each installed package whose `engines.node` excludes the Node
 * running it, and package-lock.json records each package's `engines`: a dependency (of svc-hub's or of
 * another's, for development or not) that needs a newer Node fails here before it reaches anyone's install.
 */

const root = resolve(import.meta.dir, "..");
/** The Node 20 these machines run, and the release line users on Node 20 are told to keep up with. */
const node20 = "20.20.2";

interface LockedPackage {
  readonly version?: string;
  readonly engines?: { readonly node?: string } | readonly string[];
}

function lockedPackages(): Array<[string, LockedPackage]> {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockedPackage>;
  };
  return Object.entries(lock.packages).filter(([path]) => path !== "");
}

describe("the dependencies' engines", () => {
  it("issue 41: no package in package-lock.json declares an engines.node that excludes Node 20", () => {
    const packages = lockedPackages();
    expect(packages.length).toBeGreaterThan(100);
    const excluding = packages
      .map(([path, entry]) => ({ path, version: entry.version, node: nodeRange(entry) }))
      .filter((entry) => entry.node !== undefined && !Bun.semver.satisfies(node20, entry.node))
      .map((entry) => `${entry.path.replace(/^.*node_modules\//, "")}@${entry.version} needs node ${entry.node}`);
    expect(excluding).toEqual([]);
  });

  it("tells a package that needs a newer Node from one that takes Node 20 (the check above can fail)", () => {
    expect(Bun.semver.satisfies(node20, ">=22")).toBe(false);
    expect(Bun.semver.satisfies(node20, "^20.19.0 || >=22.12.0")).toBe(true);
    expect(Bun.semver.satisfies(node20, ">=22.19.0")).toBe(false);
  });
});

/** `engines.node` as the lock records it (an object; very old packages wrote an array, which npm ignores). */
function nodeRange(entry: LockedPackage): string | undefined {
  return entry.engines && !Array.isArray(entry.engines) ? (entry.engines as { node?: string }).node : undefined;
}
