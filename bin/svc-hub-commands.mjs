/**
 * The commands of `svc-hub`, shared by the two ways it runs: `npx svc-hub` (bin/svc-hub.mjs, on Node, which
 * hands the server and the TypeScript tools over to Bun) and the single executable (adapters/cli/exe-main.ts,
 * which holds them all). Each parses its options and answers --help here; what runs the server or a tool is the
 * host's (`start(env)`, `runTool(name, args)`).
 *
 * Plain JavaScript: Node 20 runs this file as it is.
 */
import { parseArgs } from "node:util";
import {
  checkReady,
  countEvents,
  defaultUrl,
  printEvents,
  remoteOptions,
  resetServer,
  waitForEvents,
  waitForServer,
} from "./admin-calls.mjs";

const exitCodes = `Exit codes: 0 done; 1 failed (refused, unreachable, a conformance scenario failed); 2 bad usage, or a
setting or configuration the server refused; 128 + the signal's number when a signal other than SIGINT or
SIGTERM ended it (start, events --follow and wait stop with 0 on those).`;

const remoteUsage = `  --url <url>            the server (default SVC_URL, else http://127.0.0.1:8080)
  --admin-token <token>  its admin token (default SVC_ADMIN_TOKEN)`;

const usages = {
  general: `Usage: svc-hub [command] [options]

Commands:
  start        start the server in this folder (the command when none is given)
  publish      publish a folder's files as a revision, into the store or through a running server
  admin-token  print the admin token the server made at its first start and keeps in its store
  conformance  run the conformance suite against an implementation of the interface
  events       print a running server's stored events as JSON lines; --follow keeps printing new ones
  hash-secret  print the argon2id hash of a password or API key read from standard input
  wait         wait for a running server's background work (POST /admin/wait)
  reset        reset a running server to its configuration (POST /admin/reset)
  health       exit 0 when a running server is ready (GET /readyz answers 200), else 1

svc-hub <command> --help shows a command's options; svc-hub --version prints the version.

${exitCodes}
`,
  start: `Usage: svc-hub [start] [options]

Starts svc-hub in this folder: its configuration is ./svc.config.json, .yaml or .yml when present (else the
demo tenants), its data ./.svc-data. Each option sets the environment variable named beside it, and wins
over it (docs/running-it-yourself.md in svc-hub lists them all, SVC_ADMIN_TOKEN and SVC_DATABASE_URL included).

  --port <n>           PORT (8080; 0 picks a free port)
  --host <address>     SVC_HOST (127.0.0.1)
  --data-dir <folder>  SVC_DATA_DIR (./.svc-data)
  --config <file>      SVC_CONFIG (a JSON or YAML file)
  --store <kind>       SVC_STORE: libsql (the default), memory, or postgres (with SVC_DATABASE_URL)
  --timing <speed>     SVC_TIMING: instant, fast or realistic
  --log-level <level>  SVC_LOG_LEVEL
  --background <mode>  SVC_BACKGROUND: thread or inline
  --print-events       SVC_PRINT_EVENTS=true

Relative paths are taken from the folder the command was typed in. SIGINT or SIGTERM stop it (exit code 0).
${exitCodes}
`,
  events: `Usage: svc-hub events [options]

Prints the stored events of a running server (GET /admin/events), oldest first, one JSON object a line,
each with its tracking plan's verdict and violations.

  --follow               then keep printing new ones until interrupted (SIGINT or SIGTERM: exit code 0)
  --interval-ms <n>      with --follow, how often to ask (default 1000)
  --account <name>       only this account's
  --profile <name>       only this profile's
  --event <name>         only events of this name (svc_event)
  --visitor <id>         only this visitor's
  --verdict <verdict>    only those the tracking plan judged valid, invalid or none (no schema applies)
  --after-seq <n>        only those after this sequence number
  --wait                 instead, wait until matching events are stored (POST /admin/events/wait) and print
                         them; exit code 1 with a message when the timeout passes first
  --min <n>              with --wait, how many matching events to wait for (default 1)
  --timeout-ms <n>       with --wait, how long to wait at most (default 5000)
  --param <name=value>   with --wait or --count, only events whose parameter has this value (repeatable)
  --since <time>         with --wait or --count, only events received at or after (ISO 8601 or epoch ms)
  --count                instead, print how many stored events match: {"count":n}
${remoteUsage}

${exitCodes}
`,
  wait: `Usage: svc-hub wait [options]

Returns once the background work the running server accepted so far is done (POST /admin/wait), and prints
its answer.

  --timeout-ms <n>  how long the wait may take (default 30000)
  --due-only        only the work due now, not the work scheduled later on the virtual clock
${remoteUsage}

${exitCodes}
`,
  reset: `Usage: svc-hub reset [options]

Puts the running server back where a fresh start with the same configuration would be (POST /admin/reset),
and prints what it erased.

${remoteUsage}

${exitCodes}
`,
  health: `Usage: svc-hub health [--url <url>]

Asks a running server whether it is ready (GET /readyz) and exits 0 when it answers 200, else 1 (the answer,
or why there was none, on stderr); for a container's health check, which has no curl. No admin token needed.

  --url <url>  the server (default SVC_URL, else http://127.0.0.1:8080)
  --timeout-ms <n>  how long to wait for the answer (default 5000)

${exitCodes}
`,
  "hash-secret": `Usage: printf '%s' 'my-password' | svc-hub hash-secret [--key]

Prints the argon2id hash of the secret read from standard input, for the { "hash": ... } form of the
configuration file. A password is at least 8 characters; --key hashes an API key of any length.

${exitCodes}
`,
};

/** Wrong usage: one line saying what, then the usage that applies, on stderr; exit code 2. */
function refuse(message, usage) {
  process.stderr.write(`svc-hub: ${message}\n\n${usage}`);
  process.exit(2);
}

/** The options of `args` as `parseArgs` reads them, or exit 2 naming what it refused. */
function readOptions(args, options, usage) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: "boolean", short: "h" } }, strict: true }).values;
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error), usage);
  }
}

const startFlags = {
  port: "PORT",
  host: "SVC_HOST",
  "data-dir": "SVC_DATA_DIR",
  config: "SVC_CONFIG",
  store: "SVC_STORE",
  timing: "SVC_TIMING",
  "log-level": "SVC_LOG_LEVEL",
  background: "SVC_BACKGROUND",
};

function start(args, host) {
  const values = readOptions(
    args,
    {
      ...Object.fromEntries(Object.keys(startFlags).map((flag) => [flag, { type: "string" }])),
      "print-events": { type: "boolean" },
    },
    usages.start,
  );
  if (values.help) return help(usages.start);
  const env = { ...process.env };
  for (const [flag, variable] of Object.entries(startFlags))
    if (values[flag] !== undefined) env[variable] = values[flag];
  if (values["print-events"]) env.SVC_PRINT_EVENTS = "true";
  return host.start(env);
}

function help(usage) {
  process.stdout.write(usage);
  process.exit(0);
}

const remoteFlags = { url: { type: "string" }, "admin-token": { type: "string" } };

const commands = {
  start,
  // These read their own options (and answer --help) in the tools a clone runs as npm scripts.
  publish: (args, host) => host.runTool("publish", args),
  "admin-token": (args, host) => host.runTool("admin-token", args),
  conformance: (args, host) => host.runTool("conformance", args),
  "hash-secret"(args, host) {
    // Answered here: the tool would wait for standard input first.
    const values = readOptions(args, { key: { type: "boolean" } }, usages["hash-secret"]);
    if (values.help) return help(usages["hash-secret"]);
    return host.runTool("hash-secret", args);
  },
  async health(args) {
    const values = readOptions(args, { url: { type: "string" }, "timeout-ms": { type: "string" } }, usages.health);
    if (values.help) return help(usages.health);
    const timeoutMs = wholeNumber(values["timeout-ms"] ?? "5000", "--timeout-ms", usages.health);
    await checkReady((values.url ?? (process.env.SVC_URL || defaultUrl)).replace(/\/+$/, ""), timeoutMs);
  },
  async events(args) {
    const values = readOptions(
      args,
      {
        ...remoteFlags,
        follow: { type: "boolean" },
        "interval-ms": { type: "string" },
        account: { type: "string" },
        profile: { type: "string" },
        event: { type: "string" },
        visitor: { type: "string" },
        verdict: { type: "string" },
        "after-seq": { type: "string" },
        wait: { type: "boolean" },
        count: { type: "boolean" },
        min: { type: "string" },
        "timeout-ms": { type: "string" },
        param: { type: "string", multiple: true },
        since: { type: "string" },
      },
      usages.events,
    );
    if (values.help) return help(usages.events);
    const verdicts = ["valid", "invalid", "none"];
    if (values.verdict !== undefined && !verdicts.includes(values.verdict))
      refuse(`--verdict takes valid, invalid or none, not "${values.verdict}"`, usages.events);
    if (values.wait || values.count) return expectEvents(values);
    const intervalMs = wholeNumber(values["interval-ms"] ?? "1000", "--interval-ms", usages.events);
    const afterSeq = wholeNumber(values["after-seq"] ?? "0", "--after-seq", usages.events);
    await printEvents(remoteOptions(values), {
      filters: {
        account: values.account,
        profile: values.profile,
        event: values.event,
        visitor: values.visitor,
        verdict: values.verdict,
      },
      afterSeq,
      follow: values.follow === true,
      intervalMs,
    });
  },
  async wait(args) {
    const values = readOptions(
      args,
      { ...remoteFlags, "timeout-ms": { type: "string" }, "due-only": { type: "boolean" } },
      usages.wait,
    );
    if (values.help) return help(usages.wait);
    const timeoutMs =
      values["timeout-ms"] === undefined ? undefined : wholeNumber(values["timeout-ms"], "--timeout-ms", usages.wait);
    await waitForServer(remoteOptions(values), {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(values["due-only"] ? { scheduled: false } : {}),
    });
  },
  async reset(args) {
    const values = readOptions(args, remoteFlags, usages.reset);
    if (values.help) return help(usages.reset);
    await resetServer(remoteOptions(values));
  },
};

/** `events --wait` and `events --count`: the filter as POST /admin/events/wait and /admin/events/count read it. */
async function expectEvents(values) {
  const usage = usages.events;
  if (values.wait && values.count) refuse("--wait and --count go alone, not together", usage);
  if (values.follow) refuse(`--follow does not go with --${values.wait ? "wait" : "count"}`, usage);
  const params = {};
  for (const pair of values.param ?? []) {
    const equals = pair.indexOf("=");
    if (equals < 1) refuse(`--param takes name=value, not "${pair}"`, usage);
    params[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  const filter = {
    account: values.account,
    profile: values.profile,
    event: values.event,
    visitor: values.visitor,
    verdict: values.verdict,
    since: values.since,
    ...(values["after-seq"] === undefined ? {} : { afterSeq: wholeNumber(values["after-seq"], "--after-seq", usage) }),
    ...(Object.keys(params).length === 0 ? {} : { params }),
  };
  if (values.count) return countEvents(remoteOptions(values), filter);
  const min = wholeNumber(values.min ?? "1", "--min", usage);
  if (min < 1) refuse("--min takes a whole number from 1", usage);
  await waitForEvents(remoteOptions(values), {
    ...filter,
    min,
    timeoutMs: wholeNumber(values["timeout-ms"] ?? "5000", "--timeout-ms", usage),
  });
}

function wholeNumber(text, flag, usage) {
  if (!/^\d+$/.test(text)) refuse(`${flag} takes a whole number from 0, not "${text}"`, usage);
  return Number(text);
}

/**
 * Runs the command of `argv` (the arguments after the program's name) with `host`, which starts the server
 * (`start(env)`: the environment with the options applied) and the tools (`runTool(name, args)`, name one of
 * publish, admin-token, conformance, hash-secret), and says the version (`version()`).
 */
export async function runSvcHub(argv, host) {
  const [first, ...rest] = argv;
  if (first === "--version" || first === "-v") {
    process.stdout.write(`${host.version()}\n`);
    process.exit(0);
  }
  if (first === "--help" || first === "-h" || first === "help") help(usages.general);
  // No command, or only start's options: `npx svc-hub` and `npx svc-hub --port 9000` start the server.
  if (first === undefined || first.startsWith("-")) await start(argv, host);
  else if (Object.hasOwn(commands, first)) await commands[first](rest, host);
  else refuse(`unknown command "${first}"`, usages.general);
}
