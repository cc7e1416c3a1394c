/**
 * The profile worker alone, without HTTP or wrk: where a batch's time goes, per event. A fresh libSQL file
 * with the demo tenants gets `--events` events of the GET /event case (the 2,000 requests wrk cycles through,
 * read by the same rules, repeated); the worker then applies them in its batches of 500, and
 * each step of a batch is timed through the worker's pause hook (ProfilesService `pause`).
 *
 *   bun bench/profile-batch.ts                   # 100,000 events
 *   bun bench/profile-batch.ts --events 300000
 *
 * Prints one table: microseconds of wall time per event for each step, the process's CPU per event and the
 * bytes it wrote per event (/proc/self/io, WAL and checkpoints included). Apart from the first 2,000 events,
 * each is of a returning visitor.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostEventLoop } from "../adapters/runtime/event-loop.ts";
import { createLease } from "../adapters/runtime/lease.ts";
import { createMemoryLogger } from "../adapters/runtime/logger.ts";
import { openDemoService } from "../adapters/server/demo-service.ts";
import { databaseUrlForDataDir, openLibsqlStores } from "../adapters/store-libsql/libsql.stores.ts";
import { ProfilesService, profilePolicyFromLimits, profileWorker } from "../core/profiles/index.ts";
import { getScenarioEvents } from "./cases/collect.ts";

const eventsArg = process.argv.indexOf("--events");
const eventCount = eventsArg > 0 ? Number(process.argv[eventsArg + 1]) : 100_000;
if (!Number.isSafeInteger(eventCount) || eventCount <= 0) throw new Error("--events takes a positive whole number");

function writtenBytes(): number {
  const line = readFileSync("/proc/self/io", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("wchar:"));
  return Number(line?.split(":")[1] ?? Number.NaN);
}

const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-profile-batch-"));
try {
  const url = databaseUrlForDataDir(dataDir);
  // Schema and the demo tenants, as the server would make them; then the store alone.
  await (await openDemoService({ store: { kind: "libsql", url }, dataDir })).close();
  const stores = await openLibsqlStores({ url });
  const startAt = Date.now();
  const eventOf = getScenarioEvents((index) => startAt + index);
  const events = Array.from({ length: eventCount }, (_, index) => eventOf(index));
  for (let start = 0; start < events.length; start += 1000)
    await stores.events.append(events.slice(start, start + 1000));

  // The steps of a batch: the worker reads its events and configurations, then ProfilesService pauses after
  // working out the ids (1), after reading their groups and profiles (2), after applying the events (3), and
  // the batch ends with the commit of the profiles (4) and the worker's cursor.
  const steps = ["read events and ids", "read groups and profiles", "apply the events", "commit profiles and cursor"];
  const spent = [0, 0, 0, 0];
  let step = 0;
  let mark = performance.now();
  const pause = async () => {
    const now = performance.now();
    spent[step] = (spent[step] as number) + now - mark;
    step = Math.min(step + 1, steps.length - 1);
    mark = now;
  };
  const profiles = new ProfilesService({
    stores,
    policy: profilePolicyFromLimits({ visitTimeoutMinutes: 30 }),
    eventLoop: hostEventLoop,
    pause,
  });
  const worker = profileWorker({
    stores,
    profiles,
    logger: createMemoryLogger(),
    lease: createLease(stores.settings, "profiles", "this-node", 15_000),
  });

  const cpuBefore = process.cpuUsage();
  const writtenBefore = writtenBytes();
  const started = performance.now();
  let applied = 0;
  for (;;) {
    step = 0;
    mark = performance.now();
    const done = await worker.runDue(Date.now());
    spent[step] = (spent[step] as number) + performance.now() - mark;
    if (done === 0) break;
    applied += done;
  }
  const wallUs = ((performance.now() - started) * 1000) / applied;
  const cpu = process.cpuUsage(cpuBefore);
  const writtenKb = (writtenBytes() - writtenBefore) / 1024 / applied;
  await stores.close();

  const us = (ms: number) => ((ms * 1000) / applied).toFixed(1);
  console.log(`Profile worker, ${applied.toLocaleString("en-US")} events of the GET /event case, batches of 500:\n`);
  console.log("| Step | µs an event (wall) |");
  console.log("|---|---:|");
  for (const [index, name] of steps.entries()) console.log(`| ${name} | ${us(spent[index] as number)} |`);
  console.log(`| **whole batch** | **${wallUs.toFixed(1)}** |`);
  console.log(
    `\nCPU of the process: ${((cpu.user + cpu.system) / applied).toFixed(1)} µs an event (${(cpu.system / applied).toFixed(1)} in the kernel); written: ${writtenKb.toFixed(1)} KB an event.`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
