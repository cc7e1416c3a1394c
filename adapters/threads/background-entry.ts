/**
 * The entry of the background thread (adapters/threads/background-host.ts): its own libSQL connection, its
 * own view of the virtual clock, and the workers of adapters/server/background.ts.
 */

import { parentPort, workerData } from "node:worker_threads";
import type { CollectedEvent, Logger } from "../../core/ports/index.ts";
import { withJudgedEvents } from "../../core/tracking-plan/index.ts";
import { loadPlanCompiler, trackingPlansOf } from "../config/tracking-plans.ts";
import type { LogLevel } from "../runtime/logger.ts";
import { profileThisThread, profileWindowOf } from "../runtime/thread-profile.ts";
import { openVirtualClock } from "../runtime/virtual-clock.ts";
import { openBackground } from "../server/background.ts";
import { openLibsqlStores } from "../store-libsql/libsql.stores.ts";
import type { BackgroundThreadInit, FromThread, ToThread } from "./background-host.ts";
import { threadErrorOf } from "./background-host.ts";

const port = parentPort;
if (!port) throw new Error("adapters/threads/background-entry.ts runs as a worker thread only");
const init = workerData as BackgroundThreadInit;
profileThisThread("background", profileWindowOf(process.env));
const send = (message: FromThread) => port.postMessage(message);
const log = (level: LogLevel) => (message: string, fields?: Record<string, unknown>) =>
  send({ kind: "log", level, message, ...(fields ? { fields } : {}) });
const logger: Logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };

// The HTTP side says when to open the store: once the schema is up to date and the configuration applied.
await new Promise<void>((resolve) =>
  port.once("message", (message: ToThread) => {
    if (message.kind === "open") resolve();
  }),
);

try {
  // Issue 43: the events this thread commits are judged here, off the HTTP thread; the HTTP side's loader
  // already refused a plan that does not compile.
  await loadPlanCompiler(init.config);
  const plans = trackingPlansOf(init.config);
  if (!plans.ok) throw new Error(plans.error.format());
  const stores = withJudgedEvents(await openLibsqlStores({ url: init.url }), plans.value);
  const clock = await openVirtualClock(stores.settings);
  const background = await openBackground(
    { stores, clock, config: init.config, logger, nodeId: init.nodeId, dataDir: init.dataDir, pollMs: init.pollMs },
    "events",
  );
  // DEC-OPS-02: the HTTP thread (or another process) moves the clock in the store; look four times a second,
  // and at every notification and drain.
  const clockRefresh = setInterval(() => void clock.refresh().catch(() => undefined), 250);
  let stopping = false;
  /** While the HTTP side resets the service: lets the workers run again. */
  let held: (() => void) | null = null;

  port.on("message", (message: ToThread) => {
    if (message.kind === "open") return;
    if (message.kind === "notify") {
      void clock
        .refresh()
        .catch(() => undefined)
        .then(() => background.scheduler.notify());
      return;
    }
    const reply = (work: Promise<unknown>) =>
      work.then(
        (value) => send({ kind: "reply", id: message.id, ok: true, value }),
        (error: unknown) => send({ kind: "reply", id: message.id, ok: false, error: threadErrorOf(error) }),
      );
    switch (message.kind) {
      case "append":
        void reply(
          stores.events.append(JSON.parse(message.events) as CollectedEvent[]).then(() => {
            background.scheduler.notify();
          }),
        );
        return;
      case "drain":
        void reply(clock.refresh().then(() => background.scheduler.drain(message.options)));
        return;
      case "backlog":
        void reply(background.scheduler.backlog());
        return;
      case "pause":
        void reply(
          background.hold().then((release) => {
            held = release;
          }),
        );
        return;
      case "resume":
        void reply(
          clock.refresh().finally(() => {
            held?.();
            held = null;
          }),
        );
        return;
      case "stop":
        if (stopping) return;
        stopping = true;
        clearInterval(clockRefresh);
        // A reset cut short by the stop: its hold would keep the scheduler's stop waiting.
        held?.();
        held = null;
        void reply(background.stop().then(() => stores.close()));
        return;
    }
  });
  background.start();
  send({ kind: "ready" });
} catch (error) {
  send({ kind: "failed", error: threadErrorOf(error) });
}
