/**
 * The server as a process: what `npm start` does on a data directory, across restarts, and how it refuses a
 * broken configuration (DEC-OPS-01, DEC-OPS-03).
 */

import { afterEach, describe, expect, it, setDefaultTimeout } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createClient } from "@libsql/client";
import { freePort } from "../../tools/postgres-server.ts";
import { type SpawnedServer, spawnServer } from "../../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "../..");
// Each test starts server processes: a second on a quiet machine, several on a busy one (Bun's default is 5 s).
setDefaultTimeout(60_000);
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-hub-main-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function start(dataDir: string, env: Record<string, string> = {}): Promise<SpawnedServer> {
  const server = await spawnServer({ root, dataDir, env });
  cleanups.push(() => server.stop());
  return server;
}

async function runToExit(env: Record<string, string>, cwd = root): Promise<{ code: number; stderr: string }> {
  const child = Bun.spawn([join(root, "node_modules/.bin/bun"), join(root, "adapters/server/main.ts")], {
    cwd,
    env: { ...process.env, PORT: "0", SVC_DATA_DIR: tempDir(), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  clearTimeout(timer);
  return { code, stderr };
}

const adminTokenOf = (server: SpawnedServer) => /admin token: (\S+)/.exec(server.output())?.[1] ?? "";

describe("the server process", () => {
  it("prints a banner with the URL, the data directory, the admin token and the demo credentials", async () => {
    const dataDir = tempDir();
    const server = await start(dataDir);
    const output = server.output();
    expect(output).toContain(`is listening on ${server.url}`);
    expect(output).toContain(dataDir);
    expect(adminTokenOf(server)).toMatch(/^[\w-]{20,}$/);
    expect(output).toContain("demo@example.com / demo-password-1");
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it("logs one structured line per request with method, path (no query), status and duration", async () => {
    const server = await start(tempDir());
    await fetch(`${server.url}/v1/nothing-here?utk=secret-token-value`);
    await Bun.sleep(50);
    const line = server
      .output()
      .split("\n")
      .filter((entry) => entry.startsWith("{"))
      .map((entry) => JSON.parse(entry) as Record<string, unknown>)
      .find((entry) => entry.msg === "request" && entry.path === "/v1/nothing-here");
    expect(line).toMatchObject({ level: "info", method: "GET", path: "/v1/nothing-here", status: 404 });
    expect(typeof line?.ms).toBe("number");
    expect(server.output()).not.toContain("secret-token-value");
    // PRV-09: a moments lookup's visitor (here a known visitor ID holding an e-mail address) is not kept.
    const lookup = await fetch(
      `${server.url}/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/__acme_main__5120_ann@example.com__`,
    );
    expect(lookup.status).toBeLessThan(500);
    await Bun.sleep(50);
    expect(server.output()).toContain(
      '"path":"/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/…"',
    );
    expect(server.output()).not.toContain("ann@example.com");
  });

  it("stdout is the log, JSON lines only (the banner is on stderr); SVC_LOG_LEVEL=warn leaves the request lines out", async () => {
    const server = await start(tempDir());
    await fetch(`${server.url}/healthz`);
    await Bun.sleep(50);
    const lines = server
      .stdout()
      .split("\n")
      .filter((line) => line !== "");
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines.some((line) => line.includes('"msg":"request"'))).toBe(true);
    expect(server.stdout()).not.toContain("admin token:");
    expect(server.output()).toContain("admin token:");

    // The listening line is info too: the banner (stderr) says where it listens.
    const quiet = await start(tempDir(), { SVC_LOG_LEVEL: "warn" });
    await fetch(`${quiet.url}/healthz`);
    await fetch(`${quiet.url}/v1/nothing-here`);
    await Bun.sleep(50);
    expect(quiet.stdout()).not.toContain('"msg":"request"');
    expect(quiet.output()).toContain(`is listening on ${quiet.url}`);
  });

  it("SVC_LOG_FORMAT=pretty writes one readable line an entry, and the utk of a request never appears (issue 33)", async () => {
    const server = await start(tempDir(), { SVC_LOG_FORMAT: "pretty", SVC_LOG_LEVEL: "debug" });
    await fetch(`${server.url}/v1/nothing-here?utk=secret-token-value`);
    await Bun.sleep(50);
    const lines = server
      .stdout()
      .split("\n")
      .filter((line) => line !== "");
    expect(
      lines.some((line) => /^\d\d:\d\d:\d\d\.\d{3} INFO {2}listening url=http:\/\/127\.0\.0\.1:\d+ /.test(line)),
    ).toBe(true);
    expect(lines).toContainEqual(
      expect.stringMatching(/ INFO {2}request method=GET path=\/v1\/nothing-here status=404 ms=/),
    );
    for (const line of lines) expect(line.startsWith("{")).toBe(false);
    expect(server.output()).not.toContain("secret-token-value");
  });

  it("SVC_LOG_LEVEL=debug adds a line for each group commit of events and each batch of background work, from the background thread too", async () => {
    const server = await start(tempDir(), { SVC_LOG_LEVEL: "debug" });
    const answer = await fetch(`${server.url}/event?svc_account=acme&svc_profile=main&svc_event=page_view`, {
      headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36" },
    });
    expect(answer.status).toBe(200);
    const started = performance.now();
    const debugLines = () =>
      server
        .stdout()
        .split("\n")
        .filter((line) => line.includes('"level":"debug"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Until the profile worker's line is there (the background thread logs its own start too, on a fresh store).
    const workDone = () => debugLines().some((line) => line.msg === "background work done");
    while (!workDone() && performance.now() - started < 30_000) await Bun.sleep(50);
    expect(debugLines()).toContainEqual(expect.objectContaining({ msg: "events committed", events: 1 }));
    expect(debugLines()).toContainEqual(
      expect.objectContaining({ msg: "background work done", worker: "profiles", items: 1 }),
    );
  });

  it("SVC_PRINT_EVENTS=true writes each collection outcome on stdout as one JSON line among the log's (issue 32)", async () => {
    const server = await start(tempDir(), { SVC_PRINT_EVENTS: "true" });
    expect((await fetch(`${server.url}/event?svc_account=acme&svc_event=printed&svc_visitor_id=p-1`)).status).toBe(200);
    expect((await fetch(`${server.url}/event?svc_account=nobody&svc_event=refused`)).status).toBe(400);
    const printed = () =>
      server
        .stdout()
        .split("\n")
        .filter((line) => line.includes('"type":"event"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const deadline = Date.now() + 5_000;
    while (printed().length < 2 && Date.now() < deadline) await Bun.sleep(20);
    const [stored, refused] = printed();
    expect(stored).toMatchObject({ type: "event", outcome: "stored", event: "printed", visitorId: "p-1" });
    expect(stored?.at).toBe(new Date(stored?.atMs as number).toISOString());
    expect(stored?.data).toMatchObject({ svc_event: "printed" });
    expect(refused).toMatchObject({ type: "event", outcome: "refused", status: 400, account: "nobody" });
    // Every line of stdout is one whole JSON object: the events' and the log's never run into each other.
    const lines = server
      .stdout()
      .split("\n")
      .filter((line) => line !== "");
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines.some((line) => line.includes('"msg":"request"'))).toBe(true);

    // Unset, nothing is printed.
    const quiet = await start(tempDir());
    expect((await fetch(`${quiet.url}/event?svc_account=acme&svc_event=unprinted`)).status).toBe(200);
    await fetch(`${quiet.url}/healthz`);
    const logged = Date.now() + 5_000;
    while (!quiet.stdout().includes('"path":"/healthz"') && Date.now() < logged) await Bun.sleep(20);
    expect(quiet.stdout()).toContain('"path":"/event"');
    expect(quiet.stdout()).not.toContain('"type":"event"');
  });

  it("[DEC-OPS-04] a wait longer than the server's 10 s idle timeout still gets its answer (the connection was dropped, an empty reply)", async () => {
    const server = await spawnServer({
      root,
      dataDir: tempDir(),
      adminToken: "admin-token-0123456789",
      env: { SVC_TIMING: "realistic" },
    });
    cleanups.push(() => server.stop());
    const admin = { authorization: "Bearer admin-token-0123456789", "content-type": "application/json" };
    const issued = await fetch(`${server.url}/v2/auth`, {
      method: "POST",
      body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
    });
    const { token } = (await issued.json()) as { token: string };
    const deletion = await fetch(`${server.url}/v2/visitor/accounts/acme/profiles/main`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${token}` },
      body: new URLSearchParams({ attributeId: "5120", attributeValue: "idle@example.com" }),
    });
    expect(deletion.status).toBe(202);
    // A realistic deletion runs 3 days after it is asked: 16 s of them are left to wait for, in real time (Bun's
    // idle timer fires 10 to 14 s after the request was read).
    await fetch(`${server.url}/admin/clock/advance`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ by: 3 * 86_400_000 - 16_000 }),
    });
    const started = Date.now();
    // No body, as `curl -X POST` sends it.
    const waited = await fetch(`${server.url}/admin/wait`, {
      method: "POST",
      headers: { authorization: admin.authorization },
    });
    expect(Date.now() - started).toBeGreaterThan(14_000);
    expect(waited.status).toBe(200);
    expect(await waited.json()).toMatchObject({ complete: true });
  }, 40_000);

  it("a restart on the same data directory keeps what was stored: the clock, the admin token, the tenants once", async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    const token = adminTokenOf(first);
    const auth = { authorization: `Bearer ${token}` };
    const advanced = (await (
      await fetch(`${first.url}/admin/clock/advance`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ by: "30d" }),
      })
    ).json()) as { offsetMs: number };
    expect(advanced.offsetMs).toBeGreaterThanOrEqual(30 * 86_400_000);
    const accountsBefore = await (await fetch(`${first.url}/admin/accounts`, { headers: auth })).json();
    expect(await first.stop()).toBe(0);

    // The same token (the calls below use it), printed whole only by the first start.
    const second = await start(dataDir);
    expect(second.output()).toContain(`admin token: ${token.slice(0, 4)}… (kept in the store;`);
    const clock = (await (await fetch(`${second.url}/admin/clock`, { headers: auth })).json()) as { offsetMs: number };
    expect(clock.offsetMs).toBe(advanced.offsetMs);
    expect(await (await fetch(`${second.url}/admin/accounts`, { headers: auth })).json()).toEqual(accountsBefore);
  });

  it("[DEC-OPS-02] a clean stop leaves no node record; after a kill, the restarted server forgets the old one and stops writing at its looks", async () => {
    const dataDir = tempDir();
    /** The node records in the data directory's database, read beside the server (WAL readers do not block it). */
    const nodeRecords = async () => {
      const client = createClient({ url: `file:${join(dataDir, "svc-hub.db")}` });
      try {
        const rows = await client.execute(
          "select key, value from settings where key like 'cluster.node.%' order by key",
        );
        return rows.rows.map((row) => `${row.key}=${row.value}`);
      } finally {
        client.close();
      }
    };
    const first = await start(dataDir);
    await Bun.sleep(600);
    expect(await nodeRecords()).toHaveLength(1);
    expect(await first.stop()).toBe(0);
    expect(await nodeRecords()).toEqual([]);

    const killed = await start(dataDir);
    await Bun.sleep(600);
    await killed.kill();
    const leftBehind = await nodeRecords();
    expect(leftBehind).toHaveLength(1);

    const restarted = await start(dataDir);
    const started = performance.now();
    let records = await nodeRecords();
    while (records.some((record) => leftBehind.includes(record)) && performance.now() - started < 15_000) {
      await Bun.sleep(250);
      records = await nodeRecords();
    }
    expect(records).toHaveLength(1);
    expect(records[0]).not.toBe(leftBehind[0]);
    // Alone again: its record no longer moves (a commit four times a second before this fix).
    await Bun.sleep(600);
    const settled = await nodeRecords();
    await Bun.sleep(1000);
    expect(await nodeRecords()).toEqual(settled);
    expect(await restarted.stop()).toBe(0);
  }, 40_000);

  it("[DEC-OPS-01] prints a generated admin token once; with its own configuration a restart hides it", async () => {
    const dataDir = tempDir();
    const config = join(tempDir(), "svc.config.json");
    writeFileSync(config, JSON.stringify({ accounts: [{ name: "acme", profiles: [{ name: "main" }] }] }));
    const first = await start(dataDir, { SVC_CONFIG: config });
    const token = adminTokenOf(first);
    expect(token).toMatch(/^[\w-]{20,}$/);
    expect(await first.stop()).toBe(0);
    const second = await start(dataDir, { SVC_CONFIG: config });
    expect(second.output()).not.toContain(token);
    expect(second.output()).toContain(`${token.slice(0, 4)}… (kept in the store;`);
  });

  it("second probe, finding 7: a generated admin token is printed whole only at the start that made it, also with the demo tenants; later starts name the command that prints it", async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    const token = adminTokenOf(first);
    expect(token).toMatch(/^[\w-]{32}$/);
    expect(first.output()).toContain(`admin token: ${token} (new, kept in the store`);
    expect(await first.stop()).toBe(0);

    const second = await start(dataDir);
    expect(second.output()).not.toContain(token);
    expect(second.output()).toContain(`admin token: ${token.slice(0, 4)}… (kept in the store`);
    // The command as the banner spells it for a clone of svc-hub, run as `npm run svc` runs it.
    const command = /npm run svc -- (admin-token --data-dir \S+);/.exec(second.output())?.[1] ?? "";
    expect(command).toBe(`admin-token --data-dir ${dataDir}`);
    const printed = Bun.spawnSync([process.execPath, join(root, "adapters/cli/svc.ts"), ...command.split(" ")], {
      cwd: tempDir(),
      env: { ...process.env, SVC_DATA_DIR: "", SVC_STORE: "", SVC_ADMIN_TOKEN: "", INIT_CWD: "" },
    });
    expect([printed.exitCode, printed.stdout.toString()]).toEqual([0, `${token}\n`]);
    const answer = await fetch(`${second.url}/admin/accounts`, { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(200);
  }, 60_000);

  it("[DEC-OPS-03] a broken configuration file stops the start with a message naming the bad field", async () => {
    const dir = tempDir();
    const config = join(dir, "svc.config.yaml");
    writeFileSync(
      config,
      [
        "accounts:",
        "  - name: acme",
        "    profiles:",
        "      - name: main",
        "users:",
        "  - email: not-an-address",
        "    password: { env: SOME_PASSWORD }",
        "",
      ].join("\n"),
    );
    const { code, stderr } = await runToExit({ SVC_CONFIG: config });
    expect(code).not.toBe(0);
    expect(stderr).toContain("/users/0/email");
    expect(stderr).toContain("nothing was started");
  });

  it("[DEC-OPS-03] a configuration whose env secret is missing stops the start and names it", async () => {
    const dir = tempDir();
    const config = join(dir, "svc.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        accounts: [{ name: "acme", profiles: [{ name: "main" }] }],
        users: [
          {
            email: "ops@example.com",
            password: { env: "SVC_TEST_MISSING_PASSWORD" },
            grants: [{ account: "acme", profiles: "*" }],
          },
        ],
      }),
    );
    const { code, stderr } = await runToExit({ SVC_CONFIG: config });
    expect(code).not.toBe(0);
    expect(stderr).toContain("/users/0/password/env");
    expect(stderr).toContain("SVC_TEST_MISSING_PASSWORD");
  });

  it("[DEC-OPS-01] refuses an SVC_ADMIN_TOKEN that is short or that no Authorization header can carry", async () => {
    const short = await runToExit({ SVC_ADMIN_TOKEN: "fifteen-chars-x" });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("at least 16 characters");
    const spaced = await runToExit({ SVC_ADMIN_TOKEN: "a token with spaces in it" });
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain("visible ASCII");
  });

  it("refuses a missing SVC_CONFIG file and a bad PORT with a clear message", async () => {
    const missing = await runToExit({ SVC_CONFIG: "/nonexistent/svc.config.json" });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("/nonexistent/svc.config.json");
    const badPort = await runToExit({ PORT: "eighty" });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain("PORT");
  });

  it("reads SVC_CONFIG and SVC_DATA_DIR from where the command was typed (npm's INIT_CWD), as the svc CLI does", async () => {
    const typedIn = tempDir();
    const missing = await runToExit({ INIT_CWD: typedIn, SVC_CONFIG: "mine.json" });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(join(typedIn, "mine.json"));
    const server = await start(tempDir(), { INIT_CWD: typedIn, SVC_DATA_DIR: "data" });
    expect(server.output()).toContain(join(typedIn, "data"));
  });

  it("refuses to start on a port another server listens on, instead of sharing it and splitting the requests", async () => {
    const first = await start(tempDir());
    const port = new URL(first.url).port;
    const second = await runToExit({ PORT: port });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`127.0.0.1:${port} is in use`);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  });

  it("a start refused for its port leaves the data directory as it was: the port is taken before the configuration is applied", async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    const port = new URL(first.url).port;
    const config = join(tempDir(), "svc.config.json");
    writeFileSync(config, JSON.stringify({ accounts: [{ name: "initech", profiles: [{ name: "main" }] }] }));
    const second = await runToExit({ PORT: port, SVC_DATA_DIR: dataDir, SVC_CONFIG: config });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain("is in use");
    const accounts = await fetch(`${first.url}/admin/accounts`, {
      headers: { authorization: `Bearer ${adminTokenOf(first)}` },
    });
    expect(accounts.status).toBe(200);
    expect(await accounts.text()).not.toContain("initech");
  });

  it("a start refused for its port does not make a data directory that was missing", async () => {
    const first = await start(tempDir());
    const missing = join(tempDir(), "mistyped");
    const second = await runToExit({ PORT: new URL(first.url).port, SVC_DATA_DIR: missing });
    expect(second.code).toBe(2);
    expect(existsSync(missing)).toBe(false);
  });

  it("empty variables are unset: the server starts with their defaults, on 127.0.0.1, never on every interface", async () => {
    const server = await start(tempDir(), {
      SVC_HOST: "",
      SVC_STORE: "",
      SVC_BACKGROUND: "",
      SVC_TIMING: "",
      SVC_ADMIN_TOKEN: "",
      SVC_CONFIG: "",
    });
    expect(server.url).toStartWith("http://127.0.0.1:");
    expect(server.output()).toContain("is listening on http://127.0.0.1:");
  });

  it("a data directory or database it cannot use stops the start with one line saying why, not a stack", async () => {
    const file = join(tempDir(), "a-file");
    writeFileSync(file, "not a folder");
    for (const kind of ["libsql", "memory"]) {
      const notFolder = await runToExit({ SVC_DATA_DIR: file, SVC_STORE: kind });
      expect([notFolder.code, notFolder.stderr.trim()]).toEqual([
        2,
        `svc-hub: the data directory ${file} is not a directory (or holds a file where a folder belongs): choose another SVC_DATA_DIR`,
      ]);
    }
    const dataDir = tempDir();
    writeFileSync(join(dataDir, "svc-hub.db"), Buffer.alloc(8192, 7));
    const notDatabase = await runToExit({ SVC_DATA_DIR: dataDir });
    expect([notDatabase.code, notDatabase.stderr.trim()]).toEqual([
      2,
      `svc-hub: ${join(dataDir, "svc-hub.db")} is not a SQLite database: move it away, or choose another SVC_DATA_DIR`,
    ]);
  });

  it("a PostgreSQL database it cannot reach stops the start with one line naming it, without its password", async () => {
    const port = await freePort();
    const url = `postgres://svc:secret-pw@127.0.0.1:${port}/svc`;
    const unreachable = await runToExit({ SVC_STORE: "postgres", SVC_DATABASE_URL: url, SVC_DATA_DIR: tempDir() });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr.trim()).toStartWith(
      `svc-hub: cannot reach PostgreSQL at postgres://svc:***@127.0.0.1:${port}/svc (`,
    );
    expect(unreachable.stderr).toEndWith("is it running, and is SVC_DATABASE_URL right?\n");
    expect(unreachable.stderr).not.toContain("secret-pw");
  });

  it("second probe, finding 8: a password in SVC_DATABASE_URL's query is not shown by a start that fails either", async () => {
    const port = await freePort();
    const url = `postgres://svc:secret-pw@127.0.0.1:${port}/svc?password=query-pw&sslpassword=ssl-pw&application_name=hub`;
    const unreachable = await runToExit({ SVC_STORE: "postgres", SVC_DATABASE_URL: url, SVC_DATA_DIR: tempDir() });
    expect(unreachable.code).toBe(2);
    expect(unreachable.stderr.trim()).toStartWith(
      `svc-hub: cannot reach PostgreSQL at postgres://svc:***@127.0.0.1:${port}/svc?password=***&sslpassword=***&application_name=hub (`,
    );
    for (const secret of ["secret-pw", "query-pw", "ssl-pw"]) expect(unreachable.stderr).not.toContain(secret);
  });

  it("refuses to choose between two default configuration files", async () => {
    const folder = tempDir();
    writeFileSync(
      join(folder, "svc.config.json"),
      JSON.stringify({ accounts: [{ name: "acme", profiles: [{ name: "main" }] }] }),
    );
    writeFileSync(join(folder, "svc.config.yaml"), "accounts: []\n");
    const both = await runToExit({}, folder);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(
      `${join(folder, "svc.config.json")} and ${join(folder, "svc.config.yaml")} are both here`,
    );
  });

  it("warns when a store first started with the demo still holds the demo's public credentials under another configuration", async () => {
    const dataDir = tempDir();
    expect(await (await start(dataDir)).stop()).toBe(0);
    const config = join(tempDir(), "svc.config.json");
    writeFileSync(config, JSON.stringify({ accounts: [{ name: "mine", profiles: [{ name: "main" }] }] }));
    const server = await start(dataDir, { SVC_CONFIG: config });
    expect(server.output()).toContain(
      "WARNING:     this store still holds the demo's public credentials: demo@example.com, globex@example.com, nogrant@example.com, API key demo-acme, API key demo-globex.",
    );
    const fresh = await start(tempDir(), { SVC_CONFIG: config });
    expect(fresh.output()).not.toContain("WARNING");
  });

  it("npm start hands SIGTERM to the server, which stops cleanly (a supervisor signals npm)", async () => {
    const child = Bun.spawn(["npm", "start", "--silent"], {
      cwd: root,
      env: { ...process.env, PORT: "0", SVC_DATA_DIR: tempDir(), SVC_STORE: "memory" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const reader = child.stdout.getReader();
    let output = "";
    while (!/"msg":"listening","url":"([^"]+)"/.test(output)) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    const url = /"msg":"listening","url":"([^"]+)"/.exec(output)?.[1] as string;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    child.kill("SIGTERM");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    clearTimeout(timer);
    expect(await child.exited).toBe(0);
    expect(output).toContain('"msg":"server stopped"');
    expect(
      await fetch(`${url}/healthz`).then(
        () => "answered",
        () => "closed",
      ),
    ).toBe("closed");
  });

  it("stops cleanly and at once with a live feed open: the feed ends, the graceful stop does not wait on it (issue 32)", async () => {
    const server = await spawnServer({ root, dataDir: tempDir(), adminToken: "admin-token-0123456789" });
    cleanups.push(() => server.kill());
    const feed = await fetch(`${server.url}/admin/events/live`, {
      headers: { authorization: "Bearer admin-token-0123456789" },
    });
    expect(feed.status).toBe(200);
    const reader = (feed.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(": connected\n\n");
    const started = Date.now();
    expect(await server.stop()).toBe(0);
    // Well inside the 5 s after which the server closes the connections left open (and says so).
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(server.output()).not.toContain("closing the connections still open");
    expect((await reader.read()).done).toBe(true);
  });
});
