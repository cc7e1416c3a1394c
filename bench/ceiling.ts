/**
 * `bun bench/ceiling.ts`: how fast a durable GET /event could be in this runtime on this machine, whatever
 * the store. It measures, in one run and with the GET case's requests (bench/cases/collect.ts), a bare
 * `Bun.serve` (bench/bare-server.ts) and three servers that answer /event from Bun's own router, without
 * Elysia, the request log or libSQL:
 *
 * - `answer`: the pixel and a TAPID cookie, nothing else;
 * - `deferred`: the same answer from an async handler, after one `await`: what an answer that is not ready at
 *   once costs Bun's server;
 * - `turn`: the same answer once a turn of the event loop has passed, requests grouped as the group commit
 *   groups them (one `setImmediate` a group), with nothing stored;
 * - `rules`: the collection use-case itself (core/collect/collect.use-cases.ts: bot filter, the request's
 *   checks, the rate limit, the visitor ID, the event record), each event accepted at once;
 * - `durable`: the same use-case, each event appended as a line to a flat file, a 200 only once its group's
 *   fdatasync has returned (the group commit of the service, with a file instead of a database).
 *
 * `durable` is what no store can beat: an append that costs one sequential write a group. Its ratio to the
 * bare server bounds what any design of the collection endpoint can reach here (bench/FINDINGS.md, ninth
 * round). Prints a Markdown table; `--out file` writes it there too. `--rounds N` (default 2) alternates the
 * bare server with each mode N times; `--modes a,b` measures only those modes.
 *
 * `bun bench/ceiling.ts serve <mode> <file>` is one of the servers (prints `listening <port>`); `bun run bench`
 * runs the `durable` one beside svc-hub in the collection cases (GET and POST /event), as their reference.
 */
import { fdatasync, mkdtempSync, openSync, rmSync, write, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isbotFilter } from "../adapters/collect/bot-filter.ts";
import { WebCollectRequest } from "../adapters/collect/web-collect-request.ts";
import { transparentGif } from "../adapters/http/collect.routes.ts";
import { cryptoIds } from "../adapters/runtime/crypto.ts";
import { hostEventLoop } from "../adapters/runtime/event-loop.ts";
import { createMemoryLogger } from "../adapters/runtime/logger.ts";
import { createMemoryStores } from "../adapters/store-memory/memory.stores.ts";
import { CollectService } from "../core/collect/index.ts";
import { defaultLimits } from "../core/config/index.ts";
import type { CollectedEvent, Stores } from "../core/ports/index.ts";
import { getScenario } from "./cases/collect.ts";
import { cpuPercent, cpuTicksOf } from "./lib/proc.ts";
import { type BareProcess, benchCollectLimits, startListening } from "./lib/servers.ts";
import { ensureWrk, runWrk, type WrkResult, type WrkSettings } from "./lib/wrk.ts";

const modes = ["answer", "deferred", "turn", "rules", "durable"] as const;
type Mode = (typeof modes)[number];

/** Appends each group of events as JSON lines to `path`; resolves once the group's fdatasync returned. */
function flatFileAppend(path: string): (events: readonly CollectedEvent[]) => Promise<void> {
  const fd = openSync(path, "w");
  return (events) =>
    new Promise<void>((resolveAppend, reject) => {
      const text = events.map((event) => `${JSON.stringify(event)}\n`).join("");
      write(fd, text, (written) => {
        if (written) return reject(written);
        fdatasync(fd, (synced) => (synced ? reject(synced) : resolveAppend()));
      });
    });
}

async function serve(mode: Mode, file: string): Promise<void> {
  const base = createMemoryStores();
  await base.tenancy.ensureAccount("acme", 0);
  await base.tenancy.putProfile(
    "acme",
    { name: "main", visitorIdAttributes: [], attributes: [], audiences: [], engines: [], fileDefinitions: [] },
    0,
  );
  const append = mode === "durable" ? flatFileAppend(file) : async () => undefined;
  const stores: Stores = { ...base, events: { ...base.events, append } };
  const collector = new CollectService({
    stores,
    clock: { now: Date.now },
    ids: cryptoIds,
    logger: createMemoryLogger(),
    limits: { ...defaultLimits, ...benchCollectLimits },
    bots: isbotFilter,
    eventLoop: hostEventLoop,
  });
  const pixel = (setCookie: string | null) =>
    new Response(transparentGif, {
      headers: {
        "content-type": "image/gif",
        "cache-control": "no-store",
        ...(setCookie ? { "set-cookie": setCookie } : {}),
      },
    });
  const fixedCookie =
    "TAPID=acme/main>0190f1e2d3c4b5a60190f1e2d3c4b5a6|; Path=/; Max-Age=31536000; HttpOnly; Secure; SameSite=None";
  let waiting: (() => void)[] = [];
  const nextTurn = () =>
    new Promise<void>((resolveTurn) => {
      if (waiting.length === 0)
        setImmediate(() => {
          const group = waiting;
          waiting = [];
          for (const resume of group) resume();
        });
      waiting.push(resolveTurn);
    });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    routes: {
      "/event":
        mode === "answer"
          ? () => pixel(fixedCookie)
          : mode === "deferred"
            ? async () => {
                await null;
                return pixel(fixedCookie);
              }
            : mode === "turn"
              ? async () => {
                  await nextTurn();
                  return pixel(fixedCookie);
                }
              : async (request) => {
                  // GET answers the pixel, POST an empty 200, as svc-hub's collection routes do.
                  const method = request.method === "POST" ? "POST" : "GET";
                  const outcome = await collector.collect(new WebCollectRequest(request, method, "127.0.0.1"));
                  if (!outcome.ok) return new Response(null, { status: outcome.error.status });
                  if (method === "GET") return pixel(outcome.value.setCookie);
                  return new Response(null, {
                    headers: outcome.value.setCookie ? { "set-cookie": outcome.value.setCookie } : {},
                  });
                },
    },
    fetch: () => new Response(null, { status: 404 }),
  });
  process.stdout.write(`listening ${server.port}\n`);
  process.on("SIGTERM", () => process.exit(0));
}

interface Row {
  readonly name: string;
  readonly wrk: WrkResult;
  readonly cpu: number;
}

async function measure(name: string, server: BareProcess, settings: WrkSettings, scratch: string): Promise<Row> {
  const scenario = getScenario();
  await runWrk(server.url, { ...scenario, name: `${name}-warmup` }, settings, settings.warmupSeconds, scratch);
  const before = cpuTicksOf(server.pid);
  const wrk = await runWrk(server.url, { ...scenario, name }, settings, settings.seconds, scratch);
  return { name, wrk, cpu: cpuPercent(cpuTicksOf(server.pid) - before, wrk.seconds) };
}

async function main(args: readonly string[]): Promise<void> {
  if (args[0] === "serve") return serve(args[1] as Mode, args[2] as string);
  const roundsAt = args.indexOf("--rounds");
  const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 2;
  const modesAt = args.indexOf("--modes");
  const chosen =
    modesAt >= 0
      ? (args[modesAt + 1] as string)
          .split(",")
          .filter((mode): mode is Mode => (modes as readonly string[]).includes(mode))
      : modes;
  const outAt = args.indexOf("--out");
  const out = outAt >= 0 ? resolve(args[outAt + 1] as string) : null;
  const root = resolve(import.meta.dir, "..");
  const bun = join(root, "node_modules", ".bin", "bun");
  const settings: WrkSettings = { threads: 2, connections: 64, seconds: 8, warmupSeconds: 3 };
  ensureWrk((line) => process.stderr.write(`${line}\n`));
  const scratch = mkdtempSync(join(tmpdir(), "svc-hub-ceiling-"));
  const lines = [
    `Measured ${new Date().toISOString()} on ${cpus().length} cores with \`bun bench/ceiling.ts --rounds ${rounds}\`: wrk -t${settings.threads} -c${settings.connections}, ${settings.warmupSeconds} s warm-up then ${settings.seconds} s, the GET case's requests; each mode right after a bare run.`,
    "",
    "| Round | Server | Requests/s | Of bare | p50 ms | p99 ms | Server CPU % |",
    "|---:|---|---:|---:|---:|---:|---:|",
  ];
  try {
    for (let round = 1; round <= rounds; round += 1) {
      for (const mode of chosen) {
        const bare = await startListening([bun, join(root, "bench", "bare-server.ts")], root);
        const bareRow = await measure("bare", bare, settings, scratch).finally(() => bare.stop());
        const server = await startListening([bun, import.meta.path, "serve", mode, join(scratch, `${mode}.log`)], root);
        const row = await measure(mode, server, settings, scratch).finally(() => server.stop());
        for (const measured of [bareRow, row]) {
          const ratio = measured.wrk.requestsPerSecond / bareRow.wrk.requestsPerSecond;
          const line = `| ${round} | ${measured.name} | ${Math.round(measured.wrk.requestsPerSecond).toLocaleString("en-US")} | ${(ratio * 100).toFixed(1)}% | ${measured.wrk.latencyMs.p50.toFixed(2)} | ${measured.wrk.latencyMs.p99.toFixed(2)} | ${Math.round(measured.cpu)} |`;
          lines.push(line);
          process.stderr.write(`${line}\n`);
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const text = `${lines.join("\n")}\n`;
  process.stdout.write(text);
  if (out) writeFileSync(out, text);
}

await main(process.argv.slice(2));
