/**
 * The stand-ins for a host's ports that the tests of the use cases share, in the core (node:test, under Deno and
 * Bun) and in the adapters (bun:test): test support, so it may reach for the host's timers as the host itself
 * does (core/core-purity.test.ts), and it is type-checked with the tests, not with the core.
 */
import type { Digests, EventLoop, IdSource, Lease, Logger } from "../core/ports/index.ts";

/**
 * The host's event loop, as the composition root hands it over (performance.now, setImmediate, setTimeout): the
 * same as adapters/runtime/event-loop.ts, on the timers that Bun, Deno and Node all have.
 */
export const hostEventLoop: EventLoop = {
  monotonicMs: () => performance.now(),
  nextTurn: () => new Promise((resolve) => setImmediate(resolve)),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A lease of a node alone on its store: it always holds it. */
export const alwaysHeldLease: Lease = {
  acquire: async () => true,
  release: async () => undefined,
  end: async () => undefined,
};

/** A logger that writes nothing. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** A logger that keeps the level and message of each line. */
export function recordingLogger(): Logger & { readonly lines: Array<{ level: string; message: string }> } {
  const lines: Array<{ level: string; message: string }> = [];
  const record = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
}

/** Ids that count up from 1, so that every id drawn is one of its own; randomUnit is always the middle. */
export function countingIds(): IdSource {
  let count = 0;
  const next = () => {
    count += 1;
    return count;
  };
  return {
    randomHex: (bytes) =>
      next()
        .toString(16)
        .padStart(bytes * 2, "0"),
    randomToken: (bytes) => next().toString(36).padStart(bytes, "0"),
    randomUnit: () => 0.5,
  };
}

/** A clock that stands still until a test moves it: by `advance`, or to a time by `set`. */
export function manualClock(start = Date.UTC(2026, 10, 21)) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    set: (ms: number) => {
      now = ms;
    },
  };
}

/** SHA-256 from the Web Crypto API, which Bun, Deno and Node all have. */
export const webDigests: Digests = {
  async sha256Hex(data) {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
    return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
  },
};
