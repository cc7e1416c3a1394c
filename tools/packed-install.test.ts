import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { environmentWithoutServerSettings } from "./consumer-project.ts";
import { spawnServer } from "./spawn-server.ts";

/**
 * Issue 41, a light npm package: svc-hub packed as `npm pack` packs it, then installed by npm into a fresh project
 * as a user's project installs it (`npm install ./svc-hub-<version>.tgz`, its dependencies from the registry or
 * npm's cache). The package holds what a user runs and nothing of the repository's tests, benchmarks or
 * screenshots, is at most 1.5 MB, installs on Node 20 without an engine warning and without building anything,
 * and its command starts the server with the console's API reference and its renderer.
 */

const root = resolve(import.meta.dir, "..");
/** The bound of issue 41 on the packed tarball (npm pack's `size`). */
const maxPackedBytes = 1_500_000;
const installScripts = ["preinstall", "install", "postinstall", "prepare"] as const;

interface PackedFile {
  readonly path: string;
  readonly size: number;
}
interface Packed {
  readonly filename: string;
  readonly size: number;
  readonly files: readonly PackedFile[];
}
interface Manifest {
  readonly version: string;
  readonly scripts?: Record<string, string>;
  readonly bin: Record<string, string>;
  readonly exports: Record<string, string | Record<string, string>>;
}

const folder = realpathSync(mkdtempSync(join(tmpdir(), "svc-hub-packed-install-")));
const project = join(folder, "project");
let packed: Packed;
let installOutput = "";

function run(command: string[], cwd: string): { stdout: string; stderr: string } {
  const result = Bun.spawnSync(command, {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
    env: environmentWithoutServerSettings(),
  });
  const stdout = result.stdout.toString();
  const stderr = result.stderr.toString();
  if (result.exitCode !== 0)
    throw new Error(`${command.join(" ")} failed (${result.exitCode}):\n${stdout}\n${stderr}`.slice(0, 8000));
  return { stdout, stderr };
}

beforeAll(() => {
  // npm pack runs the package's prepack script first, which builds dist/.
  const [first] = JSON.parse(run(["npm", "pack", "--json", "--pack-destination", folder], root).stdout) as Packed[];
  if (first === undefined) throw new Error("npm pack made no tarball");
  packed = first;
  run(["mkdir", "-p", project], folder);
  // A user's project that lets Bun's package place its binary (its install script), as the docs say; nothing else.
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module", allowScripts: { bun: true } }),
  );
  const installed = run(
    ["npm", "install", "--foreground-scripts", "--no-audit", "--no-fund", join(folder, packed.filename)],
    project,
  );
  installOutput = `${installed.stdout}\n${installed.stderr}`;
}, 300_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

const installedManifest = (): Manifest =>
  JSON.parse(readFileSync(join(project, "node_modules", "svc-hub", "package.json"), "utf8")) as Manifest;

describe("the packed package (issue 41)", () => {
  it("is at most 1.5 MB packed", () => {
    expect(packed.size).toBeGreaterThan(100_000);
    expect(packed.size).toBeLessThanOrEqual(maxPackedBytes);
  });

  it("holds no tests, benchmarks, browser or reliability suites, test support or screenshots", () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toContain("adapters/server/main.ts");
    const notForUsers = paths.filter(
      (path) =>
        /\.test\.(ts|mts|mjs|js)$/.test(path) ||
        /^(bench|e2e|reliability|testing|tools|test-output|adapters\/store-contract)\//.test(path) ||
        /\.(png|jpe?g|gif|webp)$/.test(path) ||
        /_snapshot\.json$/.test(path),
    );
    expect(notForUsers).toEqual([]);
  });

  it("carries the API reference's renderer, RapiDoc's bundle as brotli and gzip, and its licences", () => {
    const sizes = new Map(packed.files.map((file) => [file.path, file.size]));
    expect(sizes.get("dist/console/rapidoc.js.br")).toBeGreaterThan(100_000);
    expect(sizes.get("dist/console/rapidoc.js.gz")).toBeGreaterThan(100_000);
    expect(sizes.get("dist/console/rapidoc-min.js.LICENSE.txt")).toBeGreaterThan(500);
  });

  it("has every export and bin of its package.json inside, and no script that npm runs when installing it", () => {
    const manifest = installedManifest();
    const paths = new Set(packed.files.map((file) => file.path));
    const targets = [
      ...Object.values(manifest.bin),
      ...Object.values(manifest.exports).flatMap((entry) =>
        typeof entry === "string" ? [entry] : Object.values(entry),
      ),
    ].map((target) => target.replace(/^\.\//, ""));
    expect(targets.length).toBeGreaterThan(10);
    expect(targets.filter((target) => !paths.has(target))).toEqual([]);
    expect(installScripts.filter((name) => manifest.scripts?.[name] !== undefined)).toEqual([]);
  });

  it("installs on Node 20 with no engine warning, running no script of its own (nothing is built)", () => {
    expect(installOutput).toContain("added ");
    expect(installOutput).not.toContain("EBADENGINE");
    // --foreground-scripts prints "> svc-hub@<version> <script>" for each script npm runs for svc-hub.
    expect(installOutput).not.toMatch(/> svc-hub@/);
    expect(installOutput).not.toMatch(/install-scripts.*svc-hub/);
    // What a build would need is not there: the compiled output came in the tarball.
    expect(existsSync(join(project, "node_modules", "svc-hub", "dist", "core", "index.js"))).toBe(true);
    expect(existsSync(join(project, "node_modules", "svc-hub", "node_modules"))).toBe(false);
  });

  it("npx svc-hub --version prints the package's version", () => {
    const { stdout } = run(["npx", "--no-install", "svc-hub", "--version"], project);
    expect(stdout.trim()).toBe(installedManifest().version);
  });

  it("imports svc-hub/core, store-memory, client and launcher under Node, and harness and conformance under Bun", () => {
    const node = run(
      [
        "node",
        "--input-type=module",
        "-e",
        [
          'const core = await import("svc-hub/core");',
          'const { createMemoryStores } = await import("svc-hub/store-memory");',
          'const { createSvcHubClient } = await import("svc-hub/client");',
          'const { startSvcHub } = await import("svc-hub/launcher");',
          "console.log([typeof core.ok, typeof createMemoryStores, typeof createSvcHubClient, typeof startSvcHub].join());",
        ].join("\n"),
      ],
      project,
    );
    expect(node.stdout.trim()).toBe("function,function,function,function");
    const bun = run(
      [
        join(project, "node_modules", ".bin", "bun"),
        "-e",
        'const h = await import("svc-hub/harness"); const c = await import("svc-hub/conformance"); console.log(typeof h.runScenarios, c.allScenarios.length > 150);',
      ],
      project,
    );
    expect(bun.stdout.trim()).toBe("function true");
  }, 120_000);

  it("starts the server with svc-hub start: /readyz answers 200, and SIGTERM stops it with exit code 0", async () => {
    // The command npm linked, as a supervisor or a package.json script runs it (npx itself ends with 143 on SIGTERM).
    const svcHub = join(project, "node_modules", ".bin", "svc-hub");
    const server = await spawnServer({
      root,
      command: [svcHub, "start", "--port", "0", "--store", "memory"],
      cwd: project,
      baseEnv: environmentWithoutServerSettings(),
      adminToken: "packed-install-admin-token",
      startTimeoutMs: 90_000,
    });
    try {
      const url = server.url;
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      const page = await (await fetch(`${url}/console/api`)).text();
      const renderer = /src="(\/console\/assets\/rapidoc\.js\?v=\w+)"/.exec(page)?.[1];
      expect(renderer).toBeDefined();
      // As a browser asks for it, and as a client that accepts no encoding does (fetch would decompress brotli).
      const br = await fetch(`${url}${renderer}`, { headers: { "accept-encoding": "br" }, decompress: false });
      expect(br.status).toBe(200);
      expect(br.headers.get("content-encoding")).toBe("br");
      const plain = await fetch(`${url}${renderer}`, { headers: { "accept-encoding": "identity" } });
      expect(plain.headers.get("content-encoding")).toBeNull();
      expect((await plain.text()).startsWith("/*! RapiDoc ")).toBe(true);
      expect(await server.stop()).toBe(0);
    } finally {
      await server.kill();
    }
  }, 120_000);
});
