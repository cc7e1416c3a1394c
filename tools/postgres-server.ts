/**
 * A real PostgreSQL server for the tests and benchmarks of the PostgreSQL store: Debian's `postgresql`
 * binaries (installed with apt-get when missing, as root on a Debian-like system, as the browser suite installs
 * Chromium), a throwaway cluster in a temporary folder, on a free port of 127.0.0.1, removed when stopped.
 * Never a mock or an in-process emulation: the store is tested against the server it will run on.
 *
 *   bun tools/postgres-server.ts        # starts one, prints its URL, stops it on Ctrl-C
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

/** The folder holding `initdb` and `postgres`: the newest of Debian's versions, or the ones on the PATH. */
export function findPostgresBinaries(): string | null {
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((name) => /^\d+$/.test(name) && existsSync(join(debian, name, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], "bin");
  }
  for (const folder of (process.env.PATH ?? "").split(":"))
    if (folder && existsSync(join(folder, "initdb")) && existsSync(join(folder, "postgres"))) return folder;
  return null;
}

/** The binaries' folder, installing Debian's `postgresql` first when there are none (root, apt-get). */
export function ensurePostgresBinaries(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)) {
  const found = findPostgresBinaries();
  if (found) return found;
  if (process.platform !== "linux" || !existsSync("/usr/bin/apt-get") || process.getuid?.() !== 0)
    throw new Error(
      "PostgreSQL is not installed and this machine cannot install it here: install it as root (`apt-get install -y postgresql`), then run the tests again",
    );
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const command of [
    ["apt-get", "update"],
    ["apt-get", "install", "-y", "--no-install-recommends", "postgresql"],
  ]) {
    log(`$ ${command.join(" ")}`);
    const result = spawnSync(command[0] as string, command.slice(1), { env, stdio: "inherit" });
    if (result.status !== 0) throw new Error(`${command.join(" ")} failed (exit ${result.status})`);
  }
  const installed = findPostgresBinaries();
  if (!installed) throw new Error("apt-get installed postgresql, but no initdb was found under /usr/lib/postgresql");
  return installed;
}

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface PostgresServer {
  /** `postgres://svc@127.0.0.1:<port>/postgres`: the maintenance database, for creating others. */
  readonly url: string;
  readonly port: number;
  /** The URL of another database on the same server. */
  urlOf(database: string): string;
  /** Creates a database (from `template` when given) and answers its URL. */
  createDatabase(name: string, template?: string): Promise<string>;
  /** Stops the server (fast shutdown) and removes its folder. */
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL), leaving its folder, as a crash would. */
  kill(): void;
}

export interface PostgresServerOptions {
  /** Durable commits (fsync on). Default false: tests of behaviour need no disk syncs, crash tests do. */
  readonly durable?: boolean;
  readonly log?: (line: string) => void;
}

const user = "svc";

/** The user the server runs as when this process is root (PostgreSQL refuses root): Debian's `postgres`. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const found = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (found.status !== 0 || gid.status !== 0)
    throw new Error("running as root, and there is no `postgres` user to run PostgreSQL as");
  return { uid: Number(found.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Starts a throwaway PostgreSQL server; resolves once it accepts connections. */
export async function startPostgresServer(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const bin = ensurePostgresBinaries(options.log);
  const folder = mkdtempSync(join(tmpdir(), "svc-hub-pg-"));
  const owner = serverUser();
  if (owner) {
    chmodSync(folder, 0o700);
    chownSync(folder, owner.uid, owner.gid);
  }
  const data = join(folder, "data");
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const init = spawnSync(
    join(bin, "initdb"),
    ["-D", data, "-U", user, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
    { encoding: "utf8", ...asOwner },
  );
  if (init.status !== 0) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`initdb failed (exit ${init.status}): ${init.stderr || init.stdout}`);
  }
  const port = await freePort();
  const settings = [
    ["listen_addresses", "127.0.0.1"],
    ["unix_socket_directories", folder],
    ["max_connections", "200"],
    ["shared_buffers", "64MB"],
    ...(options.durable
      ? []
      : [
          ["fsync", "off"],
          ["synchronous_commit", "off"],
          ["full_page_writes", "off"],
        ]),
  ].flatMap(([name, value]) => ["-c", `${name}=${value}`]);
  const server = spawn(join(bin, "postgres"), ["-D", data, "-p", String(port), ...settings], {
    stdio: ["ignore", "ignore", "pipe"],
    ...asOwner,
  });
  let output = "";
  server.stderr?.on("data", (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  const url = `postgres://${user}@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill("SIGINT");
      await exited;
    }
    rmSync(folder, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) {
      rmSync(folder, { recursive: true, force: true });
      throw new Error(`PostgreSQL stopped while starting (exit ${server.exitCode}): ${output}`);
    }
    const probe = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => undefined });
    try {
      await probe`select 1`;
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`PostgreSQL did not accept connections within 30 s: ${String(error)}\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await probe.end({ timeout: 1 });
    }
  }
  const urlOf = (database: string) => `postgres://${user}@127.0.0.1:${port}/${database}`;
  return {
    url,
    port,
    urlOf,
    async createDatabase(name, template) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      if (template !== undefined && !/^[a-z_][a-z0-9_]*$/.test(template))
        throw new Error(`not a plain database name: ${template}`);
      const admin = postgres(url, { max: 1, onnotice: () => undefined });
      try {
        await admin.unsafe(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
      } finally {
        await admin.end({ timeout: 1 });
      }
      return urlOf(name);
    },
    stop,
    kill() {
      server.kill("SIGKILL");
    },
  };
}

if (import.meta.main) {
  const server = await startPostgresServer({ durable: true });
  process.stdout.write(`${server.url}\n`);
  const stop = () => void server.stop().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
