import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RevisionDetails } from "../../core/revisions/index.ts";
import { type PostgresServer, startPostgresServer } from "../../tools/postgres-server.ts";
import { loadConfigFile } from "../config/config.loader.ts";
import { demoConfigPath } from "../config/demo-config.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openService, type Service } from "../server/service.ts";
import { databaseUrlForDataDir } from "../store-libsql/libsql.stores.ts";

const cli = fileURLToPath(new URL("./svc.ts", import.meta.url));
// Each test runs the command as a process, often several times: seconds each on a busy machine (Bun's default is 5 s).
setDefaultTimeout(30_000);
const root = mkdtempSync(join(tmpdir(), "svc-hub-cli-"));
const dataDir = join(root, "data");
const tags = join(root, "my-tags");

function run(
  args: string[],
  env: Record<string, string> = {},
  cwd = root,
): { code: number; stdout: string; stderr: string } {
  const child = Bun.spawnSync([process.execPath, cli, ...args], {
    cwd,
    env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_CONFIG: "", INIT_CWD: "", ...env },
  });
  return { code: child.exitCode ?? -1, stdout: child.stdout.toString(), stderr: child.stderr.toString() };
}

async function open(): Promise<Service> {
  const demo = await loadConfigFile(demoConfigPath);
  if (!demo.ok) throw new Error(demo.error.format());
  const opened = await openService({
    store: { kind: "libsql", url: databaseUrlForDataDir(dataDir) },
    config: demo.value,
    logger: createMemoryLogger(),
    env: {},
    adminToken: "cli-test-token",
  });
  if (!opened.ok) throw new Error(opened.error.format());
  return opened.value;
}

beforeAll(async () => {
  mkdirSync(tags);
  writeFileSync(join(tags, "utag.js"), "/* loader */\n");
  writeFileSync(join(tags, "utag.1.js"), "/* tag 1 */\n");
  writeFileSync(join(tags, ".DS_Store"), "finder litter");
  // The demo tenants exist in the store once a server (here: the service) has started on it.
  await (await open()).close();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const publishArgs = [
  "publish",
  "--account",
  "acme",
  "--profile",
  "main",
  "--target",
  "cli_a,cli_b",
  "--dir",
  tags,
  "--name",
  "From the CLI",
  "--comment",
  "a comment",
];

describe("svc publish", () => {
  test("--help prints the usage; bad usage exits 2 and says what is missing", () => {
    const help = run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: svc-hub publish");
    const missing = run(["publish", "--account", "acme"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("publish needs --profile, --target, --dir, --name");
    expect(run(["unpublish"]).stderr).toContain('unknown command "unpublish"');
    expect(run([...publishArgs.slice(0, -4), "--dir", join(root, "nope"), "--name", "x"]).stderr).toContain(
      "it does not exist",
    );
  });

  test("publishes the folder straight into the store of SVC_DATA_DIR, skipping hidden files", async () => {
    const answer = run([...publishArgs, "--created-by", "ops@example.com"]);
    expect(answer.stderr).toContain("skipped the hidden file .DS_Store");
    expect(answer.code).toBe(0);
    const details = JSON.parse(answer.stdout) as RevisionDetails;
    expect(details).toMatchObject({
      account: "acme",
      profile: "main",
      name: "From the CLI",
      comment: "a comment",
      created_by: "ops@example.com",
      targets_published: ["cli_a", "cli_b"],
    });
    expect(Object.keys(details.checksums.cli_a!)).toEqual(["manifest.json", "bundle.zip", "utag.js", "utag.1.js"]);
    const service = await open();
    try {
      expect(await service.deps.revisions.details("acme", "main", details.revision_id)).toEqual({
        ok: true,
        value: details,
      });
      expect((await service.deps.revisions.bundle("acme", "main", details.revision_id, "cli_b")).ok).toBe(true);
    } finally {
      await service.close();
    }
  });

  test("a refused publication exits 1 with the reason", () => {
    const bad = join(root, "bad-tags");
    mkdirSync(bad);
    writeFileSync(join(bad, "utag.js"), "x");
    writeFileSync(join(bad, "evil.sh"), "x");
    const answer = run([
      "publish",
      "--account",
      "acme",
      "--profile",
      "main",
      "--target",
      "prod",
      "--dir",
      bad,
      "--name",
      "x",
    ]);
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain(
      'refused: 400 1400 Invalid request submission. Invalid file name "evil.sh": must be one of utag.js',
    );
    const unknown = run([
      "publish",
      "--account",
      "initech",
      "--profile",
      "main",
      "--target",
      "prod",
      "--dir",
      tags,
      "--name",
      "x",
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("404 1240 Account was not found");
  });

  test("publishes through the admin API of a running server with --url", async () => {
    const service = await open();
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => service.app.handle(request) });
    try {
      const url = `http://127.0.0.1:${server.port}`;
      const answer = Bun.spawn(
        [process.execPath, cli, ...publishArgs, "--url", url, "--admin-token", "cli-test-token"],
        { env: { ...process.env, SVC_DATA_DIR: join(root, "unused") }, stdout: "pipe", stderr: "pipe" },
      );
      const [code, stdout] = await Promise.all([answer.exited, new Response(answer.stdout).text()]);
      expect(code).toBe(0);
      expect(JSON.parse(stdout) as RevisionDetails).toMatchObject({
        name: "From the CLI",
        created_by: "cli@svc-hub.invalid",
        targets_published: ["cli_a", "cli_b"],
      });
      const denied = Bun.spawn([process.execPath, cli, ...publishArgs, "--url", url, "--admin-token", "wrong"], {
        stdout: "pipe",
        stderr: "pipe",
      });
      const [deniedCode, deniedErr] = await Promise.all([denied.exited, new Response(denied.stderr).text()]);
      expect(deniedCode).toBe(1);
      expect(deniedErr).toContain("refused: 401 1401 Authentication Failed");
    } finally {
      await server.stop(true);
      await service.close();
    }
  });

  test("relative --dir, --config and SVC_DATA_DIR are taken from where npm was run (INIT_CWD), not from the project root", () => {
    // npm runs the script in the project root and says in INIT_CWD where the user typed the command.
    const projectRoot = join(root, "project");
    mkdirSync(projectRoot, { recursive: true });
    const config = join(root, "my.config.json");
    copyFileSync(demoConfigPath, config);
    const args = [
      "publish",
      "--account",
      "acme",
      "--profile",
      "main",
      "--target",
      "cli_rel",
      "--dir",
      `./${basename(tags)}`,
      "--name",
      "Relative",
    ];
    const answer = run(
      [...args, "--config", "./my.config.json"],
      { INIT_CWD: root, SVC_DATA_DIR: `./${basename(dataDir)}` },
      projectRoot,
    );
    expect(answer.stderr).not.toContain("does not exist");
    expect(answer.code).toBe(0);
    expect((JSON.parse(answer.stdout) as RevisionDetails).targets_published).toEqual(["cli_rel"]);
    expect(existsSync(join(projectRoot, basename(dataDir)))).toBe(false);
    const missingConfig = run([...args, "--config", "./nope.json"], { INIT_CWD: root }, projectRoot);
    expect(missingConfig.code).toBe(2);
    expect(missingConfig.stderr).toContain(`the configuration ${join(root, "nope.json")} does not exist`);
  });

  test("an unreadable member file (a dangling symlink) exits 2 naming the file and the reason", () => {
    const dangling = join(root, "dangling-tags");
    mkdirSync(dangling);
    writeFileSync(join(dangling, "utag.js"), "x");
    symlinkSync(join(root, "nowhere.js"), join(dangling, "utag.1.js"));
    const answer = run([
      "publish",
      "--account",
      "acme",
      "--profile",
      "main",
      "--target",
      "prod",
      "--dir",
      dangling,
      "--name",
      "x",
    ]);
    expect(answer.code).toBe(2);
    expect(answer.stderr).toContain(`svc: cannot read ${join(dangling, "utag.1.js")}: ENOENT`);
    expect(answer.stderr).not.toContain("    at ");
  });

  test("without --url, a data directory that holds no database exits 2 naming the path, and creates nothing there", () => {
    const mistyped = join(root, "dta");
    const answer = run(publishArgs, { SVC_DATA_DIR: mistyped });
    expect(answer.code).toBe(2);
    expect(answer.stderr).toContain(`svc: there is no database ${join(mistyped, "svc-hub.db")}`);
    expect(existsSync(mistyped)).toBe(false);
  });
});

/** svc-hub started once on `store` without SVC_ADMIN_TOKEN (it makes one and keeps it), and stopped: its token. */
async function startedOnceWithoutAdminToken(store: { kind: "libsql" | "postgres"; url: string }): Promise<string> {
  const demo = await loadConfigFile(demoConfigPath);
  if (!demo.ok) throw new Error(demo.error.format());
  const opened = await openService({ store, config: demo.value, logger: createMemoryLogger(), env: {} });
  if (!opened.ok) throw new Error(opened.error.format());
  expect(opened.value.adminTokenGenerated).toBe(true);
  await opened.value.close();
  return opened.value.deps.adminToken;
}

describe("svc admin-token (second probe, finding 7: the banner prints a generated token whole only once)", () => {
  test("prints the token kept in the store of --data-dir (from where npm was run), else SVC_DATA_DIR's, on stdout alone", async () => {
    const ownData = join(root, "token-data");
    const token = await startedOnceWithoutAdminToken({ kind: "libsql", url: databaseUrlForDataDir(ownData) });
    expect(run(["admin-token", "--data-dir", "./token-data"], { INIT_CWD: root }, join(root, "data"))).toEqual({
      code: 0,
      stdout: `${token}\n`,
      stderr: "",
    });
    expect(run(["admin-token"], { SVC_DATA_DIR: ownData })).toMatchObject({ code: 0, stdout: `${token}\n` });
    // A server started with SVC_ADMIN_TOKEN takes that one: said beside the token kept.
    const withVariable = run(["admin-token"], { SVC_DATA_DIR: ownData, SVC_ADMIN_TOKEN: "chosen-token-0123456789" });
    expect([withVariable.code, withVariable.stdout]).toEqual([0, `${token}\n`]);
    expect(withVariable.stderr).toContain("SVC_ADMIN_TOKEN is set here");
  }, 30_000);

  test("a store that keeps none exits 1 saying why; no store there exits 2 and makes none; --help prints the usage", () => {
    // The shared data directory's server always had SVC_ADMIN_TOKEN (open() above).
    const none = run(["admin-token"]);
    expect([none.code, none.stdout]).toEqual([1, ""]);
    expect(none.stderr).toContain(`svc: no admin token is kept in ${dataDir}`);
    const mistyped = join(root, "no-such-data");
    const missing = run(["admin-token", "--data-dir", mistyped]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`svc: there is no database ${join(mistyped, "svc-hub.db")}`);
    expect(missing.stderr).toContain("(svc-hub admin-token --help shows the usage)");
    expect(existsSync(mistyped)).toBe(false);
    const help = run(["admin-token", "--help"]);
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining("usage: svc-hub admin-token")]);
  }, 30_000);
});

describe("svc publish on PostgreSQL", () => {
  let postgres: PostgresServer | null = null;
  afterAll(async () => {
    await postgres?.stop();
  });

  test("with SVC_STORE=postgres, publishes into the database of SVC_DATABASE_URL, which every node serves", async () => {
    postgres = await startPostgresServer();
    const url = await postgres.createDatabase("cli");
    const demo = await loadConfigFile(demoConfigPath);
    if (!demo.ok) throw new Error(demo.error.format());
    const openOnPostgres = async () => {
      const opened = await openService({
        store: { kind: "postgres", url },
        config: demo.value,
        logger: createMemoryLogger(),
        env: {},
        adminToken: "cli-test-token",
      });
      if (!opened.ok) throw new Error(opened.error.format());
      return opened.value;
    };
    // The demo tenants exist once a node has started on the database.
    await (await openOnPostgres()).close();
    const answer = run(publishArgs, { SVC_STORE: "postgres", SVC_DATABASE_URL: url });
    expect(answer.code).toBe(0);
    const details = JSON.parse(answer.stdout) as RevisionDetails;
    const service = await openOnPostgres();
    try {
      expect((await service.deps.revisions.bundle("acme", "main", details.revision_id, "cli_a")).ok).toBe(true);
    } finally {
      await service.close();
    }
    const missing = run(publishArgs, { SVC_STORE: "postgres" });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("svc: SVC_STORE=postgres needs SVC_DATABASE_URL, the database the server uses\n");
  }, 60_000);

  test("svc admin-token with SVC_STORE=postgres prints the token kept in the database of SVC_DATABASE_URL", async () => {
    postgres ??= await startPostgresServer();
    const url = await postgres.createDatabase("cli_token");
    const token = await startedOnceWithoutAdminToken({ kind: "postgres", url });
    const answer = run(["admin-token"], { SVC_STORE: "postgres", SVC_DATABASE_URL: url });
    expect([answer.code, answer.stdout]).toEqual([0, `${token}\n`]);
  }, 60_000);
});
