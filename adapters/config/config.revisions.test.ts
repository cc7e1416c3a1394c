import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceConfig } from "../../core/config/index.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openService } from "../server/service.ts";
import { databaseUrlForDataDir, type LibsqlStores } from "../store-libsql/libsql.stores.ts";
import { loadConfigFile, parseConfigText } from "./config.loader.ts";
import { loadYamlParser } from "./config.syntax.ts";
import { demoConfigPath } from "./demo-config.ts";

// parseConfigText reads YAML once its parser is loaded (loadConfigFile loads it).
await loadYamlParser();

function parsed(text: string): ServiceConfig {
  const result = parseConfigText(text, "yaml", "svc.config.yaml");
  if (!result.ok) throw new Error(`expected a valid configuration:\n${result.error.format()}`);
  return result.value;
}

function problems(text: string): string[] {
  const result = parseConfigText(text, "yaml", "svc.config.yaml");
  if (result.ok) throw new Error("expected the configuration to be refused");
  return result.error.problems.map((problem) => `${problem.path}: ${problem.message}`);
}

const tenants = `
accounts: [{ name: acme, profiles: [{ name: main }] }]
`;

describe("configuration: revisionFilePrefix and revisions (DEC-REV-01, DEC-REV-02)", () => {
  test("a configured revision is read with its defaults; the prefix defaults to utag", () => {
    const config = parsed(`${tenants}
revisions:
  - account: acme
    profile: main
    name: First
    createdBy: ops@example.com
    targets: [prod, qa]
    files:
      - { name: utag.js, text: "/* loader */" }
      - name: utag.1.js
        text: |
          /* tag 1 */
`);
    expect(config.revisionFilePrefix).toBe("utag");
    expect(config.revisions).toEqual([
      {
        account: "acme",
        profile: "main",
        name: "First",
        comment: "",
        createdBy: "ops@example.com",
        targets: ["prod", "qa"],
        files: [
          { name: "utag.js", text: "/* loader */" },
          { name: "utag.1.js", text: "/* tag 1 */\n" },
        ],
      },
    ]);
  });

  test("another prefix changes the names a revision may hold", () => {
    const revision = `
revisions: [{ account: acme, profile: main, name: R, createdBy: a@example.com, targets: [prod], files: [{ name: tm.js, text: x }] }]`;
    expect(parsed(`${tenants}revisionFilePrefix: tm${revision}`).revisionFilePrefix).toBe("tm");
    expect(problems(`${tenants}${revision}`)).toEqual([
      '/revisions/0/files/0/name: must be one of utag.js, utag.<n>.js, utag.sync.js or mobile.html (found "tm.js")',
    ]);
  });

  test("a bad prefix is refused with the name rule", () => {
    expect(problems(`revisionFilePrefix: "../x"`)).toEqual([
      '/revisionFilePrefix: may contain only the characters A-Z a-z 0-9 _ - ~ (found "../x")',
    ]);
  });

  test("every problem of a configured revision is reported with its path", () => {
    expect(
      problems(`${tenants}
revisions:
  - account: acme
    profile: dev
    name: R
    createdBy: a@example.com
    targets: [prod, prod]
    files: [{ name: ../utag.js, text: x }, { name: manifest.json, text: "{}" }]
  - account: initech
    profile: main
    name: R
    createdBy: not-an-address
    targets: [prod]
    files: [{ name: utag.js, text: x }]
`),
    ).toEqual(['/revisions/1/createdBy: must be an e-mail address (found "not-an-address")']);
    expect(
      problems(`${tenants}
revisions:
  - account: acme
    profile: dev
    name: R
    createdBy: a@example.com
    targets: [prod, prod]
    files: [{ name: ../utag.js, text: x }, { name: manifest.json, text: "{}" }]
  - { account: initech, profile: main, name: R, createdBy: b@example.com, targets: [prod], files: [{ name: utag.sync.js, text: x }] }
`),
    ).toEqual([
      '/revisions/0/profile: account "acme" has no profile "dev"',
      '/revisions/0/targets/1: is given twice (found "prod")',
      '/revisions/0/files/0/name: must be a plain file name, without a folder (no / or \\) (found "../utag.js")',
      '/revisions/0/files/1/name: is made by the service and must not be sent (found "manifest.json")',
      '/revisions/1/account: no account "initech" is configured',
      "/revisions/1/files: must include the main loader utag.js",
    ]);
  });

  test("targets follow the name rule and a revision has at least one target and one file", () => {
    expect(
      problems(`${tenants}
revisions: [{ account: acme, profile: main, name: R, createdBy: a@example.com, targets: ["pr od"], files: [] }]`),
    ).toEqual([
      '/revisions/0/targets/0: may contain only the characters A-Z a-z 0-9 _ - ~ (found "pr od")',
      "/revisions/0/files: must not be an empty list",
    ]);
  });

  test("two configured revisions may not share a target of one profile: each restart would publish both again", () => {
    expect(
      problems(`
accounts: [{ name: acme, profiles: [{ name: main }, { name: dev }] }]
revisions:
  - { account: acme, profile: main, name: A, createdBy: a@example.com, targets: [prod, qa], files: [{ name: utag.js, text: a }] }
  - { account: acme, profile: main, name: B, createdBy: a@example.com, targets: [dev, qa], files: [{ name: utag.js, text: b }] }
  - { account: acme, profile: dev, name: C, createdBy: a@example.com, targets: [qa], files: [{ name: utag.js, text: c }] }
`),
    ).toEqual([
      '/revisions/1/targets/1: acme/main\'s target "qa" is given to /revisions/0 already: one configured revision a target (found "qa")',
    ]);
  });

  test("the demo configuration holds the published revision of demo.md", async () => {
    const demo = await loadConfigFile(demoConfigPath);
    if (!demo.ok) throw new Error(demo.error.format());
    expect(demo.value.revisions).toHaveLength(1);
    const [revision] = demo.value.revisions;
    expect(revision).toMatchObject({
      account: "acme",
      profile: "main",
      createdBy: "demo@example.com",
      targets: ["prod"],
    });
    expect(revision!.files.map((file) => file.name)).toEqual([
      "utag.js",
      "utag.1.js",
      "utag.2.js",
      "utag.sync.js",
      "mobile.html",
    ]);
  });
});

describe("publishing the configured revisions at start (demo.md, DEC-OPS-03)", () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  test("the demo revision is published at the first start and not again at a restart", async () => {
    const demo = await loadConfigFile(demoConfigPath);
    if (!demo.ok) throw new Error(demo.error.format());
    const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-revisions-"));
    directories.push(dataDir);
    const start = async () => {
      const opened = await openService({
        store: { kind: "libsql", url: databaseUrlForDataDir(dataDir) },
        config: demo.value,
        logger: createMemoryLogger(),
        env: {},
        adminToken: "t",
      });
      if (!opened.ok) throw new Error(opened.error.format());
      const ids = await opened.value.deps.revisions.list("acme", "main");
      const details = await opened.value.deps.revisions.details("acme", "main", ids[0] ?? "");
      // DEC-COL-08: the start's own writes were made unsynced (LibsqlStoreOptions.startUnsynced); every commit
      // after the start is synced.
      const mode = await (opened.value.stores as unknown as LibsqlStores).syncMode();
      await opened.value.close();
      return { ids, details, mode };
    };
    const first = await start();
    const second = await start();
    expect(first.mode).toBe("FULL");
    expect(first.ids).toHaveLength(1);
    expect(second).toEqual(first);
    expect(first.details.ok && first.details.value.created_by).toBe("demo@example.com");
  });

  test("a configured revision naming a profile the store lacks stops the start with its path", async () => {
    // The loader checks references; a configuration built in code can still name a missing profile.
    const config: ServiceConfig = {
      ...parsed(tenants),
      revisions: [
        {
          account: "acme",
          profile: "dev",
          name: "R",
          comment: "",
          createdBy: "a@example.com",
          targets: ["prod"],
          files: [{ name: "utag.js", text: "x" }],
        },
      ],
    };
    const opened = await openService({
      store: { kind: "memory" },
      config,
      logger: createMemoryLogger(),
      env: {},
      adminToken: "t",
    });
    expect(!opened.ok && opened.error.problems).toEqual([
      { path: "/revisions/0", message: "cannot be published: Profile was not found" },
    ]);
  });
});
