import { afterAll, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expectedHostReport, type HostReport } from "../testing/host.ts";

/**
 * Node is a host of the core too. A project installs svc-hub's packed tarball, as a user would, and imports
 * "svc-hub/core" and "svc-hub/store-memory" under the machine's Node (20): what it gets is the compiled
 * JavaScript (Node cannot read TypeScript under node_modules), with type declarations that a TypeScript project
 * checks against. It then runs the host scenario the Deno test runs (testing/host.ts).
 */

const root = resolve(import.meta.dir, "..");
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function run(command: string[], cwd: string): string {
  const result = Bun.spawnSync(command, { cwd, stdout: "pipe", stderr: "pipe" });
  const output = result.stdout.toString();
  if (result.exitCode !== 0) throw new Error(`${command.join(" ")} failed (${result.exitCode}):\n${result.stderr}`);
  return output;
}

/** A project with svc-hub installed from its packed tarball, laid out as npm lays a tarball out. */
function projectWithPackedSvcHub(): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), "svc-hub-node-host-")));
  folders.push(folder);
  // npm pack runs the package's prepare script first, which compiles the core into dist/.
  const [packed] = JSON.parse(run(["npm", "pack", "--json", "--pack-destination", folder], root)) as Array<{
    filename: string;
  }>;
  if (packed === undefined) throw new Error("npm pack made no tarball");
  const installed = join(folder, "node_modules", "svc-hub");
  mkdirSync(installed, { recursive: true });
  run(["tar", "-xzf", join(folder, packed.filename), "-C", installed, "--strip-components=1"], folder);
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "host", private: true, type: "module" }));
  return folder;
}

/** One packed project for the file's tests: packing compiles the core, which takes a while. */
let packedProject: string | undefined;
function sharedProjectWithPackedSvcHub(): string {
  packedProject ??= projectWithPackedSvcHub();
  return packedProject;
}

describe("a Node host of the packed core", () => {
  it("runs the host scenario under Node 20 from the compiled core, and type-checks against its declarations", () => {
    const project = sharedProjectWithPackedSvcHub();
    const scenario = readFileSync(join(root, "testing", "host.ts"), "utf8");
    // The scenario takes the core and the store as arguments and imports only types, so it transpiles to a
    // module that needs nothing of svc-hub's but what the host hands it.
    writeFileSync(
      join(project, "host-scenario.mjs"),
      new Bun.Transpiler({ loader: "ts", target: "node" }).transformSync(scenario),
    );
    writeFileSync(
      join(project, "host.mjs"),
      [
        'import * as core from "svc-hub/core";',
        'import { createMemoryStores } from "svc-hub/store-memory";',
        'import { runHostScenario } from "./host-scenario.mjs";',
        "const eventLoop = {",
        "  monotonicMs: () => performance.now(),",
        "  nextTurn: () => new Promise((resolve) => setImmediate(resolve)),",
        "  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),",
        "};",
        "const report = await runHostScenario({ core, createStores: () => createMemoryStores(), eventLoop });",
        "console.log(JSON.stringify({ node: process.versions.node, report }));",
      ].join("\n"),
    );
    const { node, report } = JSON.parse(run(["node", "host.mjs"], project)) as {
      node: string;
      report: HostReport;
    };
    expect(Number(node.split(".")[0])).toBeGreaterThanOrEqual(20);
    expect(report).toEqual(expectedHostReport);

    writeFileSync(
      join(project, "host.ts"),
      [
        'import { type Stores, managementError } from "svc-hub/core";',
        'import { createMemoryStores } from "svc-hub/store-memory";',
        "const stores: Stores = createMemoryStores();",
        'const status: number = managementError("accountNotFound").status;',
        "export { stores, status };",
      ].join("\n"),
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          types: [],
        },
        files: ["host.ts"],
      }),
    );
    run([join(root, "node_modules", ".bin", "tsc"), "-p", "."], project);
  }, 120_000);

  it("imports the typed client (issue 33) from the packed tarball: compiled JavaScript with its declarations", () => {
    const project = sharedProjectWithPackedSvcHub();
    // A project that installs svc-hub gets its dependencies beside it; here, the client's own from svc-hub's.
    const dependencies = join(project, "node_modules");
    for (const name of ["openapi-fetch", "openapi-typescript-helpers"]) {
      symlinkSync(join(root, "node_modules", name), join(dependencies, name));
    }
    writeFileSync(
      join(project, "client.mjs"),
      [
        'import { createSvcHubClient } from "svc-hub/client";',
        "const seen = [];",
        "const fetch = async (request) => {",
        "  seen.push({ url: request.url, cookie: request.headers.get('cookie') });",
        "  if (request.url.endsWith('/v1/login')) {",
        "    const headers = new Headers({ 'content-type': 'application/json' });",
        "    headers.append('set-cookie', 'JSESSIONID=s-1; Path=/; HttpOnly; Secure');",
        "    return new Response(JSON.stringify({ utk: 'u-1' }), { status: 200, headers });",
        "  }",
        "  return new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } });",
        "};",
        'const hub = createSvcHubClient({ baseUrl: "http://svc-hub.invalid", fetch });',
        'const session = await hub.login("demo@example.com", "demo-password-1");',
        'await session.api.GET("/v1/dle/accounts/{account}/profiles/{profile}/datalayers", { params: { path: { account: "acme", profile: "main" } } });',
        "console.log(JSON.stringify(seen[1]));",
      ].join("\n"),
    );
    expect(JSON.parse(run(["node", "client.mjs"], project))).toEqual({
      url: "http://svc-hub.invalid/v1/dle/accounts/acme/profiles/main/datalayers?utk=u-1",
      cookie: "JSESSIONID=s-1",
    });

    writeFileSync(
      join(project, "client.ts"),
      [
        'import { createSvcHubClient } from "svc-hub/client";',
        'const hub = createSvcHubClient({ baseUrl: "http://127.0.0.1:8080" });',
        "// @ts-expect-error PUT /admin/clock takes { now }",
        'export const moved = hub.admin.PUT("/admin/clock", { body: { time: 1 } });',
      ].join("\n"),
    );
    writeFileSync(
      join(project, "tsconfig.client.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ["client.ts"],
      }),
    );
    run([join(root, "node_modules", ".bin", "tsc"), "-p", "tsconfig.client.json"], project);
  }, 120_000);
});
