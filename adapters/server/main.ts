/**
 * Starts svc-hub: `bun adapters/server/main.ts` (what `npm start` runs).
 *
 * Environment: PORT (8080; 0 picks a free port), SVC_HOST (127.0.0.1), SVC_DATA_DIR (./.svc-data),
 * SVC_CONFIG (a JSON or YAML file; default ./svc.config.json, .yaml or .yml when present, else the demo
 * tenants), SVC_ADMIN_TOKEN (else the one kept in the store, made at first start), SVC_TIMING (instant,
 * fast or realistic; overrides the file), SVC_STORE (libsql, the default, memory, or postgres with SVC_DATABASE_URL), SVC_BACKGROUND (thread,
 * the default: background work in a thread of its own with libSQL; or inline), SVC_PRINT_EVENTS (true: each
 * outcome of the collection endpoint also printed on stdout, a JSON line among the log's).
 */

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describeError, stackFramesOf } from "../../core/errors/index.ts";
import { loadConfigFile } from "../config/config.loader.ts";
import { demoConfigPath } from "../config/demo-config.ts";
import { maxPublishBodyBytes } from "../http/admin-revisions.routes.ts";
import { answerHeadersOf } from "../http/answer-headers.ts";
import { attachConnection, idleTimeoutSeconds } from "../http/connection.ts";
import { unavailableResponse } from "../http/error-mapping.ts";
import { withRequestLog } from "../http/request-log.ts";
import { displayDatabaseUrl } from "../runtime/database-url.ts";
import { descriptorOutput } from "../runtime/descriptor-output.ts";
import { batchedWriter, createLogger } from "../runtime/logger.ts";
import { stopsWithParent, watchParent } from "../runtime/parent-watch.ts";
import { dataDirFromEnv, defaultConfigFiles, fromInvocation } from "../runtime/paths.ts";
import { clientAddressOf, compileProxyTrust } from "../runtime/proxy-trust.ts";
import { readServerSettings, type ServerSettings, SettingRefused, settingOf } from "../runtime/server-settings.ts";
import { errorCodeOf } from "../runtime/storage-errors.ts";
import { profileThisThread, profileWindowOf } from "../runtime/thread-profile.ts";
import { databaseFileName, databaseUrlForDataDir } from "../store-libsql/libsql.stores.ts";
import { nodeIdOf, openService, type StoreChoice, serviceVersion } from "./service.ts";

const env = process.env;
// Diagnostics: SVC_CPU_PROFILE_DIR profiles each thread of the server over a window (adapters/runtime/thread-profile.ts).
profileThisThread("http", profileWindowOf(env));
// Straight to the descriptors while the server starts: Node's stream objects would cost the start their loading;
// through the streams, which queue, once it serves (descriptor-output.ts).
const stdout = descriptorOutput(1);
const stderr = descriptorOutput(2);
const output = batchedWriter(stdout.write);
const errorOutput = stderr.write;
process.on("exit", () => output.flush());

function fail(message: string): never {
  output.flush();
  errorOutput(`svc-hub: ${message}\n`);
  process.exit(2);
}

function chooseConfigPath(): { path: string; demo: boolean } {
  const named = settingOf(env, "SVC_CONFIG");
  if (named) {
    const path = fromInvocation(named, env);
    if (!existsSync(path)) fail(`SVC_CONFIG names ${path}, which does not exist`);
    return { path, demo: false };
  }
  const present = defaultConfigFiles.map((name) => resolve(name)).filter((path) => existsSync(path));
  // Two of them is a mistake to point out, not a choice to make silently (the one taken might be the stale one).
  if (present.length > 1) fail(`${present.join(" and ")} are both here: keep one, or set SVC_CONFIG to the one to use`);
  return present[0] ? { path: present[0], demo: false } : { path: demoConfigPath, demo: true };
}

/** The store of the data directory (made if missing), or the PostgreSQL database: called once the port is taken. */
function openStoreChoice(kind: StoreChoice["kind"], databaseUrl: string | undefined): StoreChoice {
  if (kind === "memory") return { kind: "memory" };
  if (kind === "postgres" && databaseUrl !== undefined) return { kind: "postgres", url: databaseUrl };
  return { kind: "libsql", url: databaseUrlForDataDir(dataDir) };
}

/** Why the PostgreSQL database could not be opened, when the reason is one an operator can act on. */
function postgresStartFailure(error: unknown, url: string): string | null {
  const where = displayDatabaseUrl(url);
  switch (errorCodeOf(error)) {
    case "ECONNREFUSED":
    case "ENOTFOUND":
    case "EHOSTUNREACH":
    case "ETIMEDOUT":
    case "CONNECT_TIMEOUT":
      return `cannot reach PostgreSQL at ${where} (${describeError(error)}): is it running, and is SVC_DATABASE_URL right?`;
    case "28P01":
    case "28000":
      return `PostgreSQL at ${where} refused the user or password of SVC_DATABASE_URL (${describeError(error)})`;
    case "3D000":
      return `the database of ${where} does not exist: create it (createdb), or name another in SVC_DATABASE_URL`;
    case "42501":
      return `the user of ${where} may not create the service's tables (${describeError(error)}): grant it CREATE on the database, or run the first start as its owner`;
    default:
      return null;
  }
}

/** Why the store or the data directory could not be opened, in one line an operator can act on. */
function startFailure(error: unknown): string {
  if (settings.storeKind === "postgres" && settings.databaseUrl !== undefined) {
    const reason = postgresStartFailure(error, settings.databaseUrl);
    if (reason) return reason;
    const frames = stackFramesOf(error);
    return `the service could not be opened on ${displayDatabaseUrl(settings.databaseUrl)}: ${describeError(error)}${frames ? `\n${frames}` : ""}`;
  }
  const database = join(dataDir, databaseFileName);
  switch (errorCodeOf(error)) {
    case "SQLITE_BUSY":
    case "SQLITE_LOCKED":
      return `the database ${database} is locked by another process (a tool holding it, or another svc-hub upgrading it); try again once it lets go`;
    case "SQLITE_NOTADB":
      return `${database} is not a SQLite database: move it away, or choose another SVC_DATA_DIR`;
    case "SQLITE_CANTOPEN":
    case "SQLITE_READONLY":
    case "EACCES":
    case "EPERM":
      return `cannot write in the data directory ${dataDir} (${describeError(error)}): check its permissions, or choose another SVC_DATA_DIR`;
    case "ENOTDIR":
    case "EEXIST":
      return `the data directory ${dataDir} is not a directory (or holds a file where a folder belongs): choose another SVC_DATA_DIR`;
    case "ENOSPC":
      return `no space left for the data directory ${dataDir}`;
    default: {
      // Not a storage reason we know: the whole error, so that a bug can be found from it.
      const frames = stackFramesOf(error);
      return `the service could not be opened on ${dataDir}: ${describeError(error)}${frames ? `\n${frames}` : ""}`;
    }
  }
}

let settings: ServerSettings;
try {
  settings = readServerSettings(env);
} catch (error) {
  if (error instanceof SettingRefused) fail(error.message);
  throw error;
}
const {
  port,
  host,
  timing,
  storeKind,
  databaseUrl,
  backgroundThread,
  adminToken,
  logLevel,
  logFormat,
  trustedProxies,
  printEvents,
  requestJournalBytes,
} = settings;
// SVC_LOG_FORMAT=pretty: readable lines, the level in colour when stdout is a terminal (asked only then).
const logger = createLogger({
  write: output.write,
  least: logLevel,
  format: logFormat,
  color: logFormat === "pretty" && process.stdout.isTTY === true,
});
const dataDir = dataDirFromEnv(env);
const configSource = chooseConfigPath();
const loaded = await loadConfigFile(configSource.path);
if (!loaded.ok) fail(`the configuration is not valid, nothing was started:\n${loaded.error.format()}`);
const config = loaded.value;

/** DEC-GEN-05: what every answer carries, the 503s of the start included. */
const startingHeaders = answerHeadersOf(serviceVersion, nodeIdOf(config));

// The port first: a start that cannot listen (another svc-hub on it) must stop before it changes the store,
// which may be the one the other server uses. Until the service is open every request is answered 503.
const server = listen();
/** Set once the server listens and `shutdown` can run. */
let started = false;
let store: StoreChoice;
let opened: Awaited<ReturnType<typeof openService>>;
try {
  store = openStoreChoice(storeKind, databaseUrl);
  opened = await openService({
    store,
    config,
    logger,
    env,
    adminToken,
    timing,
    dataDir,
    backgroundThread,
    requestJournalBytes,
    // The log's writer: an event's line and a log line are each written whole, never one inside the other.
    ...(printEvents ? { printEvents: output.write } : {}),
    // Without its background thread the service can no longer commit events: stop, so that whatever runs it
    // (systemd, a container runtime) starts it again, rather than answering 503 until someone notices.
    onBackgroundFailure: (error) =>
      started
        ? void shutdown("background thread stopped", 1)
        : fail(`the background thread stopped while starting: ${error.message}`),
  });
} catch (error) {
  server.stop(true);
  fail(startFailure(error));
}
if (!opened.ok) {
  server.stop(true);
  fail(`the configuration could not be applied, nothing was started:\n${opened.error.format()}`);
}
const service = opened.value;
const proxyTrust = compileProxyTrust(trustedProxies);
const serve = withRequestLog((request) => service.app.handle(request), logger, service.deps.metrics);
server.reload({
  fetch(request, bun) {
    // The peer's address as the socket saw it, and the one way to keep a connection open past the idle
    // timeout (an authenticated admin wait asks for it, adapters/http/connection.ts).
    const peer = bun.requestIP(request)?.address ?? "unknown";
    const address = clientAddressOf(
      peer,
      proxyTrust === null ? null : request.headers.get("x-forwarded-for"),
      proxyTrust,
    );
    return serve(attachConnection(request, { address, keepOpenFor: (seconds) => bun.timeout(request, seconds) }));
  },
  error: unhandledError,
});
service.start();

/**
 * The server, answering 503 until the service is open (then `reload` hands it the app), or a clear exit: a
 * port in use is refused (Bun otherwise let a second server listen beside the first and split the requests).
 */
function listen(): ReturnType<typeof Bun.serve> {
  try {
    return Bun.serve({
      port,
      hostname: host,
      // Never Bun's development error page (it shows messages and stacks): DEC-GEN-07.
      development: false,
      reusePort: false,
      idleTimeout: idleTimeoutSeconds,
      maxRequestBodySize: largestBodyBytes(config.limits),
      fetch: (request) => unavailableResponse(request, startingHeaders),
      error: unhandledError,
    });
  } catch (error) {
    const inUse = (error as { code?: string }).code === "EADDRINUSE";
    fail(
      inUse
        ? `${host}:${port} is in use (another svc-hub?); choose another PORT`
        : `cannot listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * Bun's own cap on a request body (128 MiB unless told), answered with a bare 413 before any route: above
 * every limit the routes apply themselves (an upload's `limits.maxUploadBytes`, a revision's 64 MiB, a data
 * layer's `limits.maxBodyBytes`), so that those answer with their own message, 1 MiB above them so that a
 * declared length just past a limit reaches its route too.
 */
function largestBodyBytes(limits: { readonly maxUploadBytes: number; readonly maxBodyBytes: number }): number {
  return Math.max(limits.maxUploadBytes, limits.maxBodyBytes, maxPublishBodyBytes) + 1024 * 1024;
}

function unhandledError(error: Error): Response {
  logger.error("unhandled error", { error: describeError(error), stack: stackFramesOf(error) });
  return new Response(JSON.stringify({ returnCode: 1500, message: "Internal error" }), {
    status: 500,
    headers: { ...startingHeaders, "content-type": "application/json" },
  });
}

const url = `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`;
let stopping = false;
async function shutdown(signal: string, exitCode = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info("stopping", { signal });
  // The live feeds never end by themselves: ended first, so that the graceful stop does not wait on them.
  service.endStreams();
  // Graceful for up to 5 s, then the connections still open are closed: a client that never finishes its
  // request (a slow or stalled upload) must not keep the process from stopping.
  const graceful = server.stop();
  if ((await Promise.race([graceful.then(() => "stopped"), Bun.sleep(5_000).then(() => "timeout")])) === "timeout") {
    logger.warn("closing the connections still open after 5 s");
    await server.stop(true);
  }
  logger.info("server stopped");
  await service.close();
  process.exit(exitCode);
}
started = true;
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
if (stopsWithParent(env)) watchParent(() => void shutdown("parent exited"));

// DEC-OPS-01: a generated token is printed whole by the start that made it, and only there, the demo tenants'
// included, so that the logs of a supervisor or a container do not repeat a secret at every start; later starts
// name the command that prints it. A token chosen in SVC_ADMIN_TOKEN is never printed whole: whoever set it knows
// it, and logs travel further than the environment (a CI log, a shared terminal).
function adminTokenLines(): string[] {
  const token = service.deps.adminToken;
  if (adminToken !== undefined) return [`${token.slice(0, 4)}… (from SVC_ADMIN_TOKEN)`];
  if (service.adminTokenGenerated) return [`${token} (new, kept in the store; printed whole at this start only)`];
  // The store the command must open: the data directory's, or the same PostgreSQL database.
  const command = store.kind === "postgres" ? "admin-token" : `admin-token --data-dir ${shellWord(dataDir)}`;
  return [
    `${token.slice(0, 4)}… (kept in the store; printed whole only at the start that made it)`,
    `print it with: npx svc-hub ${command}${store.kind === "postgres" ? " (SVC_STORE=postgres, this SVC_DATABASE_URL)" : ""}`,
    `or in a clone of svc-hub: npm run svc -- ${command}; or choose one in SVC_ADMIN_TOKEN`,
  ];
}

/** `text` as one word of a POSIX shell's command line: as it is when it holds nothing the shell reads, else quoted. */
function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
/**
 * The demo's users and API keys that still hold the demo's public secrets in this store, when another
 * configuration runs on it: a store first started with the demo keeps them (a configuration deletes nothing
 * it does not mention), and their passwords and keys are printed in docs/demo-tenants.md.
 */
async function publicDemoCredentials(): Promise<string[]> {
  if (configSource.demo) return [];
  const demo = await loadConfigFile(demoConfigPath);
  if (!demo.ok) return [];
  const mentioned = new Set(config.users.map((user) => user.email));
  const found: string[] = [];
  for (const user of demo.value.users) {
    if (mentioned.has(user.email) || !("hash" in user.password)) continue;
    const stored = await service.stores.tenancy.findUser(user.email);
    if (stored && !stored.disabled && stored.passwordHash === user.password.hash) found.push(user.email);
  }
  const mentionedKeys = new Set(config.apiKeys.map((key) => key.id));
  for (const key of demo.value.apiKeys) {
    if (mentionedKeys.has(key.id) || !("hash" in key.key)) continue;
    const stored = await service.stores.tenancy.findApiKey(key.id);
    if (!stored || stored.revokedAt !== null || stored.keyHash !== key.key.hash) continue;
    // A key of a disabled user issues no token: not usable, so not worth a warning.
    const owner = await service.stores.tenancy.findUser(stored.userEmail);
    if (owner && !owner.disabled) found.push(`API key ${key.id}`);
  }
  return found;
}
// A look that fails (the store busy) must not stop a server that is already serving: said in the log.
const demoLeft = await publicDemoCredentials().catch((error: unknown) => {
  logger.warn("could not look for the demo's public credentials in the store", { error: describeError(error) });
  return [];
});
if (demoLeft.length > 0)
  logger.warn("the store holds the demo's users and API keys with their public secrets", { credentials: demoLeft });

/** Where the records are kept, for the banner. */
function storeLine(): string {
  switch (store.kind) {
    case "libsql":
      return dataDir;
    case "postgres":
      return `PostgreSQL at ${displayDatabaseUrl(store.url)}; drop folders and received files under ${dataDir}`;
    case "memory":
      return `in memory (lost on exit); drop folders and received files under ${dataDir}`;
  }
}

const banner = [
  "",
  `  svc-hub ${service.deps.version} is listening on ${url}`,
  `  data:        ${storeLine()}`,
  `  config:      ${configSource.demo ? "the demo tenants (no SVC_CONFIG, and no svc.config.json, .yaml or .yml)" : configSource.path}`,
  `  timing:      ${service.deps.timing.name}`,
  ...adminTokenLines().map((line, index) => `${index === 0 ? "  admin token: " : "               "}${line}`),
  ...(configSource.demo
    ? [
        "  demo users:  demo@example.com / demo-password-1 (acme), globex@example.com / globex-password-1 (globex),",
        "               nogrant@example.com / nogrant-password-1 (no grants)",
        "  demo keys:   demo-key-0001-acme, demo-key-0002-globex",
      ]
    : []),
  ...(demoLeft.length > 0
    ? [
        `  WARNING:     this store still holds the demo's public credentials: ${demoLeft.join(", ")}.`,
        "               Disable them (PUT /admin/users/<email>/disabled, DELETE /admin/users/<email>/api-keys/<id>),",
        "               or start on a fresh SVC_DATA_DIR.",
      ]
    : []),
  `  try:         curl ${url}/healthz`,
  "",
];
output.flush();
// On stderr: stdout is the log, JSON lines only.
errorOutput(`${banner.join("\n")}\n`);
// Last line of the start: tools wait for it (tools/spawn-server.ts).
logger.info("listening", {
  url,
  dataDir: store.kind === "libsql" ? dataDir : null,
  store: store.kind,
  ...(store.kind === "postgres" ? { database: displayDatabaseUrl(store.url) } : {}),
  config: configSource.path,
  timing: service.deps.timing.name,
  nodeId: service.deps.nodeId,
});
// Serving: a log reader that stops reading must not hold the server, so the streams take over (they queue).
output.flush();
stdout.toStream();
stderr.toStream();
// The start's own work (the migrations, the configuration, the demo revision's zip) leaves garbage and compiled
// code that serving will not run again. Half a second after the start, once its last promises have settled, a
// full collection and JavaScriptCore's shrink (which drops that code and gives the freed pages back) leave the
// idle server holding what serving needs: about 7 MB less (bench/FINDINGS.md, "Start"). `Bun.shrink` is marked
// deprecated in Bun's types with no successor; a runtime without it keeps the memory.
if (typeof Bun.shrink === "function")
  setTimeout(() => {
    Bun.gc(true);
    Bun.shrink();
  }, 500).unref();
