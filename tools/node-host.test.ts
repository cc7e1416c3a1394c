import { afterAll, describe, expect, it } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expectedHostReport, type HostReport } from "../testing/host.ts";
import { environmentWithoutServerSettings } from "./consumer-project.ts";
import { runCommand } from "./run-command.ts";
import { spawnServer } from "./spawn-server.ts";

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

let packedProject: string | undefined;
/** A project with svc-hub installed from its packed tarball, laid out as npm lays a tarball out (made once per file). */
function projectWithPackedSvcHub(): string {
  packedProject ??= packSvcHubIntoProject();
  return packedProject;
}

function packSvcHubIntoProject(): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), "svc-hub-node-host-")));
  folders.push(folder);
  // npm pack runs the package's prepack script first, which compiles the core into dist/.
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

describe("a Node host of the packed core", () => {
  it("runs the host scenario under Node 20 from the compiled core, and type-checks against its declarations", () => {
    const project = projectWithPackedSvcHub();
    // A project that installs svc-hub gets its dependencies beside it; here, the core's one package (cookie).
    if (!existsSync(join(project, "node_modules", "cookie")))
      symlinkSync(join(root, "node_modules", "cookie"), join(project, "node_modules", "cookie"));
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
        'import { errors, type ports } from "svc-hub/core";',
        'import { createMemoryStores } from "svc-hub/store-memory";',
        "const stores: ports.Stores = createMemoryStores();",
        'const status: number = errors.managementError("accountNotFound").status;',
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

  it("issue 33, each svc-hub command from the installed tarball: start with flags, wait, events (and --follow), publish, reset, hash-secret, conformance", async () => {
    const project = projectWithPackedSvcHub();
    // The dependencies as npm would install them, without asking a registry: this repository's, linked; the bin
    // linked as npm links it.
    // Another test of this file may have linked some already.
    for (const name of readdirSync(join(root, "node_modules")))
      if (name !== ".bin" && name !== "svc-hub" && !existsSync(join(project, "node_modules", name)))
        symlinkSync(join(root, "node_modules", name), join(project, "node_modules", name));
    mkdirSync(join(project, "node_modules", ".bin"));
    symlinkSync(join("..", "svc-hub", "bin", "svc-hub.mjs"), join(project, "node_modules", ".bin", "svc-hub"));
    const svcHub = join(project, "node_modules", ".bin", "svc-hub");
    const adminToken = "tarball-admin-token-0123";
    const server = await spawnServer({
      root,
      command: [svcHub, "start", "--port", "0", "--store", "memory", "--timing", "instant"],
      cwd: project,
      baseEnv: environmentWithoutServerSettings(),
      adminToken,
      startTimeoutMs: 90_000,
    });
    try {
      const url = server.url;
      const env = { ...environmentWithoutServerSettings(), SVC_URL: url, SVC_ADMIN_TOKEN: adminToken };
      const run = (args: string[], stdin?: string) =>
        runCommand([svcHub, ...args], { cwd: project, env, ...(stdin === undefined ? {} : { stdin }) });
      const sendEvent = (name: string) =>
        fetch(`${url}/event`, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": browser },
          body: JSON.stringify({ svc_account: "acme", svc_profile: "main", svc_event: name }),
        });

      expect((await sendEvent("first")).status).toBe(200);
      const waited = await run(["wait", "--timeout-ms", "10000"]);
      expect([waited.code, JSON.parse(waited.stdout)]).toEqual([0, expect.objectContaining({ complete: true })]);

      const events = await run(["events", "--account", "acme"]);
      expect(events.code).toBe(0);
      expect(
        events.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line).event),
      ).toEqual(["first"]);

      // --follow prints what is stored, then what arrives, until interrupted (exit code 0).
      const follow = Bun.spawn([svcHub, "events", "--follow", "--interval-ms", "100"], {
        cwd: project,
        env,
        stdout: "pipe",
        stderr: "pipe",
      });
      const followed = follow.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let printed = "";
      const readUntil = async (lineCount: number) => {
        while (printed.split("\n").length <= lineCount) printed += (await followed.read()).value ?? "";
      };
      await readUntil(1);
      expect((await sendEvent("second")).status).toBe(200);
      await readUntil(2);
      follow.kill("SIGINT");
      expect(await follow.exited).toBe(0);
      expect(
        printed
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line).event),
      ).toEqual(["first", "second"]);

      mkdirSync(join(project, "site"));
      writeFileSync(join(project, "site", "utag.js"), "/* tarball */");
      const published = await run([
        ...["publish", "--account", "acme", "--profile", "main", "--target", "prod"],
        ...["--dir", "site", "--name", "from the tarball", "--url", url],
      ]);
      expect([published.code, published.stderr]).toEqual([0, ""]);
      expect(JSON.parse(published.stdout)).toMatchObject({ name: "from the tarball" });

      const reset = await run(["reset"]);
      expect([reset.code, JSON.parse(reset.stdout).erased.events]).toEqual([0, 2]);
      const refused = await run(["reset", "--admin-token", "not-the-token-0123"]);
      expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("POST /admin/reset answered 401")]);

      const hashed = await run(["hash-secret"], "my-password\n");
      expect([hashed.code, hashed.stdout]).toEqual([0, expect.stringMatching(/^\$argon2id\$/)]);

      const conformance = await run([
        ...["conformance", "--target", url, "--admin-token", adminToken, "--only", "DEC-OPS-04"],
        ...["--report-dir", "conformance-report"],
      ]);
      expect([conformance.code, conformance.stderr]).toEqual([0, ""]);

      expect(await server.stop()).toBe(0);
    } finally {
      await server.kill();
    }
  }, 180_000);

  it("imports the typed client (issue 33) from the packed tarball: compiled JavaScript with its declarations", () => {
    const project = projectWithPackedSvcHub();
    // A project that installs svc-hub gets its dependencies beside it; here, the client's own from svc-hub's.
    const dependencies = join(project, "node_modules");
    for (const name of ["openapi-fetch", "openapi-typescript-helpers"]) {
      // Another test of this file may have linked them already.
      if (!existsSync(join(dependencies, name)))
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

const browser = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0";
