/**
 * `svc-hub publish` (bin/svc-hub.mjs hands over to it; `npm run svc -- publish` in a checkout)
 * (DEC-REV-01): publishes the files of a folder as a revision, either straight into the store of
 * SVC_DATA_DIR (as the server itself would, also while it runs: the store is shared safely) or through the
 * admin API of a running server (--url).
 *
 * `svc-hub admin-token` (DEC-OPS-01): prints the admin token kept in that store, which the server's banner
 * shows whole only at the start that made it.
 *
 * Exit codes: 0 published (printed), 1 refused (the reason is printed), 2 bad usage or unreadable input.
 *
 * Paths the user gives (--dir, --config, SVC_CONFIG, SVC_DATA_DIR) are taken from the directory the command
 * was typed in: npm runs the script in the project root and says in INIT_CWD where it was run from.
 */
import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { ServiceConfig } from "../../core/config/index.ts";
import type { Stores } from "../../core/ports/index.ts";
import { type PublishedFile, type PublishRequest, RevisionsService } from "../../core/revisions/index.ts";
import { loadConfigFile } from "../config/config.loader.ts";
import { demoConfigPath } from "../config/demo-config.ts";
import { nodeDigests } from "../runtime/crypto.ts";
import { deterministicZipper } from "../runtime/deterministic-zip.ts";
import { dataDirFromEnv, defaultConfigFiles, fromInvocation } from "../runtime/paths.ts";
import { settingOf } from "../runtime/server-settings.ts";
import { openVirtualClock } from "../runtime/virtual-clock.ts";
import { readKeptAdminToken } from "../server/admin-token.ts";
import { databaseFileName, databaseUrlForDataDir, openLibsqlStores } from "../store-libsql/libsql.stores.ts";
import { openPostgresStores } from "../store-postgres/postgres.stores.ts";

const defaultAuthor = "cli@svc-hub.invalid";

const usage = `usage: svc-hub publish --account <account> --profile <profile> --target <target>[,<target>...]
                       --dir <folder> --name <name> [--comment <text>] [--created-by <e-mail>]
                       [--url <base-url> [--admin-token <token>]] [--config <file>]
       svc-hub publish --help     (in a checkout of svc-hub: npm run svc -- publish ...)

publish   Publishes the files of --dir as one revision. Each file's name is its member name in the bundle:
          utag.js (required), utag.<n>.js, utag.sync.js and mobile.html (the prefix is the configuration's
          revisionFilePrefix). Hidden files (.DS_Store, ...) are skipped; a folder inside --dir is refused.
          --target may be given several times or as a comma-separated list.

  without --url  writes into the store of SVC_DATA_DIR (default ./.svc-data), as the server would, also
                 while the server runs on it. The prefix comes from the configuration the server reads:
                 --config, else SVC_CONFIG, else ./svc.config.json/.yaml/.yml, else the demo.
  with --url     publishes through the admin API of that server (POST /admin/accounts/{a}/profiles/{p}/revisions)
                 with --admin-token, else SVC_ADMIN_TOKEN.

Relative paths (--dir, --config, SVC_CONFIG, SVC_DATA_DIR) are taken from the directory you ran the command in.
--created-by defaults to SVC_CREATED_BY, else ${defaultAuthor}.
Prints the details of the new revision (JSON). Exit codes: 0 published, 1 refused, 2 bad usage or unreadable input.`;

const adminTokenUsage = `usage: svc-hub admin-token [--data-dir <folder>]
       (in a checkout of svc-hub: npm run svc -- admin-token ...)

admin-token  Prints the admin token that the server made at its first start and keeps in its store (the
             banner prints it whole at that start only): the store of --data-dir, else SVC_DATA_DIR (default
             ./.svc-data, relative paths from the directory you ran the command in), or with SVC_STORE=postgres
             the database of SVC_DATABASE_URL. A server started with SVC_ADMIN_TOKEN takes that one instead.
Exit codes: 0 printed, 1 no token is kept there, 2 bad usage or no store there.`;

class UsageError extends Error {}

function fail(code: 1 | 2, message: string): never {
  process.stderr.write(`svc: ${message}\n`);
  if (code === 2)
    process.stderr.write(
      `(svc-hub ${process.argv[2] === "admin-token" ? "admin-token" : "publish"} --help shows the usage)\n`,
    );
  process.exit(code);
}

interface PublishOptions {
  readonly account: string;
  readonly profile: string;
  readonly dir: string;
  readonly request: Omit<PublishRequest, "files">;
  readonly url?: string;
  readonly adminToken?: string;
  readonly config?: string;
}

function readPublishOptions(args: string[]): PublishOptions {
  const { values, positionals } = parseArgs({
    args,
    options: {
      account: { type: "string" },
      profile: { type: "string" },
      target: { type: "string", multiple: true },
      dir: { type: "string" },
      name: { type: "string" },
      comment: { type: "string" },
      "created-by": { type: "string" },
      url: { type: "string" },
      "admin-token": { type: "string" },
      config: { type: "string" },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0)
    throw new UsageError(`publish takes no arguments without an option name: ${positionals.join(" ")}`);
  const missing = (["account", "profile", "target", "dir", "name"] as const).filter(
    (option) => !values[option]?.length,
  );
  if (missing.length > 0) throw new UsageError(`publish needs ${missing.map((option) => `--${option}`).join(", ")}`);
  if (values.url !== undefined) {
    try {
      new URL(values.url);
    } catch {
      throw new UsageError(`--url must be a URL such as http://127.0.0.1:8080, not "${values.url}"`);
    }
  }
  const targets = (values.target ?? []).flatMap((target) => target.split(",")).map((target) => target.trim());
  return {
    account: values.account as string,
    profile: values.profile as string,
    dir: values.dir as string,
    url: values.url,
    adminToken: values["admin-token"] ?? settingOf(process.env, "SVC_ADMIN_TOKEN"),
    config: values.config,
    request: {
      name: values.name as string,
      comment: values.comment ?? "",
      createdBy: values["created-by"] ?? settingOf(process.env, "SVC_CREATED_BY") ?? defaultAuthor,
      targets,
    },
  };
}

/** The files directly inside `dir`, by name; hidden files are skipped, anything that is not a file is refused. */
async function readMemberFiles(dir: string): Promise<PublishedFile[]> {
  const folder = fromInvocation(dir);
  let names: string[];
  try {
    names = (await readdir(folder)).sort();
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(
      `cannot read --dir ${folder}: ${code === "ENOENT" ? "it does not exist" : code === "ENOTDIR" ? "it is not a folder" : (error as Error).message}`,
    );
  }
  const files: PublishedFile[] = [];
  for (const name of names) {
    if (name.startsWith(".")) {
      process.stderr.write(`svc: skipped the hidden file ${name}\n`);
      continue;
    }
    const path = join(folder, name);
    try {
      const info = await stat(path);
      if (!info.isFile())
        throw new UsageError(`${path} is not a file; a bundle holds only the files directly inside --dir`);
      files.push({ name, bytes: new Uint8Array(await readFile(path)) });
    } catch (error) {
      if (error instanceof UsageError) throw error;
      // A dangling symlink (ENOENT), a file without read permission (EACCES), ...
      throw new UsageError(`cannot read ${path}: ${(error as { code?: string }).code ?? (error as Error).message}`);
    }
  }
  if (files.length === 0) throw new UsageError(`${folder} holds no files to publish`);
  return files;
}

/** The configuration the server would read, for the file prefix. */
async function readConfig(explicit: string | undefined): Promise<ServiceConfig> {
  const named = explicit || settingOf(process.env, "SVC_CONFIG");
  // A named file is the user's path; the default files are the server's, in the directory `npm start` runs in.
  const candidates = named ? [fromInvocation(named)] : defaultConfigFiles.map((name) => resolve(name));
  const path = candidates.find((candidate) => existsSync(candidate));
  if (named && !path) throw new UsageError(`the configuration ${candidates[0]} does not exist`);
  const loaded = await loadConfigFile(path ?? demoConfigPath);
  if (!loaded.ok) throw new UsageError(`the configuration is not valid:\n${loaded.error.format()}`);
  return loaded.value;
}

/**
 * The store the server of this environment uses (SVC_STORE): its data directory's file (`dataDir`, else
 * SVC_DATA_DIR's), or its PostgreSQL database.
 */
async function openServerStore(dataDir = dataDirFromEnv()): Promise<{ stores: Stores; where: string }> {
  const kind = settingOf(process.env, "SVC_STORE") ?? "libsql";
  if (kind === "memory")
    throw new UsageError("SVC_STORE is memory: a publication into a memory store would be lost at once; use --url");
  if (kind === "postgres") {
    const url = settingOf(process.env, "SVC_DATABASE_URL");
    if (!url) throw new UsageError("SVC_STORE=postgres needs SVC_DATABASE_URL, the database the server uses");
    return { stores: await openPostgresStores({ url, maxConnections: 2 }), where: "the PostgreSQL database" };
  }
  if (kind !== "libsql") throw new UsageError(`SVC_STORE must be libsql, memory or postgres, not "${kind}"`);
  // Opening a store creates and migrates it: a mistyped directory would get a new, empty database.
  const database = join(dataDir, databaseFileName);
  if (!existsSync(database))
    throw new UsageError(
      `there is no database ${database}; SVC_DATA_DIR must be the data directory of a server that has started once`,
    );
  return { stores: await openLibsqlStores({ url: databaseUrlForDataDir(dataDir) }), where: dataDir };
}

async function publishToStore(options: PublishOptions, files: PublishedFile[]): Promise<void> {
  const config = await readConfig(options.config);
  const { stores, where } = await openServerStore();
  try {
    const clock = await openVirtualClock(stores.settings);
    const service = new RevisionsService({
      stores,
      clock,
      digests: nodeDigests,
      zipper: deterministicZipper,
      filePrefix: config.revisionFilePrefix,
    });
    const published = await service.publish(options.account, options.profile, { ...options.request, files });
    if (!published.ok) {
      const { error } = published.error;
      const hint =
        error.returnCode === 1240 || error.returnCode === 1250
          ? ` (in ${where}; start the server once so that its configuration is applied, or publish with --url)`
          : "";
      fail(1, `refused: ${error.status} ${error.returnCode} ${error.message}${hint}`);
    }
    process.stdout.write(`${JSON.stringify(published.value, null, 2)}\n`);
  } finally {
    await stores.close();
  }
}

async function publishThroughApi(options: PublishOptions, files: PublishedFile[]): Promise<void> {
  if (!options.adminToken) throw new UsageError("--url needs --admin-token (or SVC_ADMIN_TOKEN)");
  const form = new FormData();
  form.set("name", options.request.name);
  form.set("comment", options.request.comment);
  form.set("created_by", options.request.createdBy);
  form.set("targets", options.request.targets.join(","));
  for (const file of files) form.append("file", new File([file.bytes as Uint8Array<ArrayBuffer>], file.name));
  const base = (options.url as string).replace(/\/+$/, "");
  const path = `/admin/accounts/${encodeURIComponent(options.account)}/profiles/${encodeURIComponent(options.profile)}/revisions`;
  let answer: Response;
  try {
    answer = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${options.adminToken}` },
      body: form,
    });
  } catch (error) {
    return fail(1, `cannot reach ${base}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await answer.text();
  if (answer.status !== 201) {
    let reason = text;
    try {
      const body = JSON.parse(text) as { returnCode?: number; message?: string };
      if (body.message) reason = `${body.returnCode ?? ""} ${body.message}`.trim();
    } catch {
      // not JSON: show the text as it is
    }
    fail(1, `refused: ${answer.status} ${reason}`);
  }
  process.stdout.write(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
}

/** DEC-OPS-01: the admin token kept in the server's store, on stdout alone, so that `$(...)` takes it. */
async function printAdminToken(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { "data-dir": { type: "string" } } });
  const named = values["data-dir"];
  const { stores, where } = await openServerStore(named ? fromInvocation(named) : undefined);
  try {
    const token = await readKeptAdminToken(stores.settings);
    if (token === null)
      fail(1, `no admin token is kept in ${where}: the server makes one at its first start without SVC_ADMIN_TOKEN`);
    if (settingOf(process.env, "SVC_ADMIN_TOKEN"))
      process.stderr.write("svc: SVC_ADMIN_TOKEN is set here: a server started with it takes that one instead\n");
    process.stdout.write(`${token}\n`);
  } finally {
    await stores.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${usage}\n\n${adminTokenUsage}\n`);
    process.exit(command === undefined ? 2 : 0);
  }
  if (command !== "publish" && command !== "admin-token")
    throw new UsageError(`unknown command "${command}"; the commands are: publish, admin-token`);
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${command === "publish" ? usage : adminTokenUsage}\n`);
    process.exit(0);
  }
  if (command === "admin-token") return printAdminToken(rest);
  const options = readPublishOptions(rest);
  const files = await readMemberFiles(options.dir);
  if (options.url) await publishThroughApi(options, files);
  else await publishToStore(options, files);
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS"))
    fail(2, (error as Error).message);
  throw error;
}
