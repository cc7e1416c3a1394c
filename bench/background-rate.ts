/**
 * The background thread at a fixed rate, without HTTP or wrk: collected events of the GET /event case are
 * appended through the thread in groups of 25, at `--rate` events a second for `--seconds`, while the thread's
 * workers (profiles, imports, deletions) run as in the server. Then the work left is drained.
 *
 *   bun bench/background-rate.ts                       # 8,000 events/s for 10 s
 *   bun bench/background-rate.ts --rate 12000 --seconds 20
 *
 * Prints the append round trip (p50, p99), the drain time, and each busy thread's CPU per event (from
 * /proc/self/task, 10 ms ticks, the drain included). Under wrk the rate follows the server's speed, so the
 * work a batch finds changes with it, and two runs of the same build differ by 10% and more; at a fixed rate
 * the CPU an event is comparable between builds.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDemoService } from "../adapters/server/demo-service.ts";
import { databaseUrlForDataDir } from "../adapters/store-libsql/libsql.stores.ts";
import type { CollectedEvent } from "../core/ports/index.ts";
import { getScenarioEvents } from "./cases/collect.ts";

function numberArg(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index > 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} takes a positive number`);
  return value;
}

const rate = numberArg("--rate", 8000);
const seconds = numberArg("--seconds", 10);
const groupSize = 25;

const eventAt = getScenarioEvents(() => Date.now());
let made = 0;
/** The next event of the GET case, received now. */
function nextEvent(): CollectedEvent {
  return eventAt(made++);
}

/** CPU ticks (1/100 s) of each thread of this process, by thread id. */
function threadTicks(): Map<string, { name: string; ticks: number }> {
  const threads = new Map<string, { name: string; ticks: number }>();
  for (const id of readdirSync("/proc/self/task")) {
    const stat = readFileSync(`/proc/self/task/${id}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    threads.set(id, {
      name: readFileSync(`/proc/self/task/${id}/comm`, "utf8").trim(),
      ticks: Number(fields[11]) + Number(fields[12]),
    });
  }
  return threads;
}

const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-background-rate-"));
const service = await openDemoService({
  store: { kind: "libsql", url: databaseUrlForDataDir(dataDir) },
  dataDir,
  backgroundThread: true,
});
try {
  service.start();
  const append = (events: CollectedEvent[]) => service.stores.events.append(events);

  /** Appends at the rate for `duration` seconds; answers each group's round trip in ms. */
  async function load(duration: number): Promise<number[]> {
    const total = Math.round(rate * duration);
    const roundTrips: number[] = [];
    const waiting: Array<Promise<void>> = [];
    const started = performance.now();
    let sent = 0;
    while (sent < total) {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
      // Whole groups as they fall due; the last one may be short.
      while (due - sent >= groupSize || (due === total && sent < total)) {
        const group = Array.from({ length: Math.min(groupSize, total - sent) }, nextEvent);
        sent += group.length;
        const sentAt = performance.now();
        waiting.push(append(group).then(() => void roundTrips.push(performance.now() - sentAt)));
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(waiting);
    return roundTrips;
  }

  await load(2); // warm-up
  const before = threadTicks();
  const firstEvent = made;
  const roundTrips = (await load(seconds)).sort((a, b) => a - b);
  const drainStarted = performance.now();
  const drained = await service.deps.scheduler.drain({ timeoutMs: 120_000 });
  const drainMs = performance.now() - drainStarted;
  const after = threadTicks();
  const events = made - firstEvent;

  const quantile = (q: number) =>
    (roundTrips[Math.min(roundTrips.length - 1, Math.floor(q * roundTrips.length))] as number).toFixed(2);
  console.log(
    `${events.toLocaleString("en-US")} events at ${rate.toLocaleString("en-US")}/s in groups of ${groupSize}, then drained (${drained.complete ? "complete" : "NOT complete"}):\n`,
  );
  console.log(`- append round trip: p50 ${quantile(0.5)} ms, p99 ${quantile(0.99)} ms`);
  console.log(`- drain after the load: ${drainMs.toFixed(0)} ms`);
  const busy = [...after]
    .map(([id, thread]) => ({ name: thread.name, ticks: thread.ticks - (before.get(id)?.ticks ?? 0) }))
    .filter((thread) => thread.ticks >= 5);
  console.log(
    `- CPU an event, by thread: ${busy.map((thread) => `${thread.name} ${((thread.ticks * 10_000) / events).toFixed(1)} µs`).join(", ")}`,
  );
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
