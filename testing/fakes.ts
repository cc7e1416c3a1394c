/**
 * The stand-ins for a host's ports that the tests of the use cases share, in the core (node:test, under Deno and
 * Bun) and in the adapters (bun:test): test support, so it may reach for the host's timers as the host itself
 * does (core/core-purity.test.ts), and it is type-checked with the tests, not with the core.
 */
import type { Digests, EventLoop, IdSource, Lease, Logger, Stores, TenancyStore } from "../core/ports/index.ts";

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

/**
 * The stores, answering a call with a name that holds U+0000 as PostgreSQL does: with an error (it refuses
 * U+0000 in text). A string argument, or a string in an array argument, is a name; records and JSON documents
 * are not looked into. The core's tests run a use case on these to show that it answers such a name without
 * asking a store (docs/decisions.md, "Text that a store cannot keep"); `asked` lists the calls refused.
 */
export function storesRefusingNul(stores: Stores): Stores & { readonly asked: string[] } {
  const asked: string[] = [];
  const holdsNul = (value: unknown): boolean =>
    typeof value === "string" ? value.includes("\u0000") : Array.isArray(value) && value.some(holdsNul);
  const guarded = (area: string, target: object) =>
    new Proxy(target, {
      get(inner, property, receiver) {
        const value: unknown = Reflect.get(inner, property, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (args.some(holdsNul)) {
            asked.push(`${area}.${String(property)}`);
            return Promise.reject(new Error('invalid byte sequence for encoding "UTF8": 0x00'));
          }
          return (value as (...args: unknown[]) => unknown).apply(inner, args);
        };
      },
    });
  const areas = Object.fromEntries(
    Object.entries(stores).map(([area, value]) => [
      area,
      value !== null && typeof value === "object" ? guarded(area, value) : value,
    ]),
  );
  return { ...stores, ...areas, asked } as Stores & { readonly asked: string[] };
}

/** A point a piece of work stops at until the test opens it: `arrived` once the work waits there. */
export function gate() {
  let arrive = () => {};
  let open = () => {};
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    arrived,
    open: () => open(),
    pass: async () => {
      arrive();
      await opened;
    },
  };
}

export type Gate = ReturnType<typeof gate>;

/**
 * `stores`, where the next read of a user after `hold()` reads it and then waits at `held` before answering: a
 * change that read the user, stopped before it writes.
 */
export function storesHoldingAUserRead(stores: Stores, held: Gate) {
  let armed = false;
  const tenancy: TenancyStore = Object.create(stores.tenancy);
  tenancy.findUser = async (email) => {
    const user = await stores.tenancy.findUser(email);
    if (armed) {
      armed = false;
      await held.pass();
    }
    return user;
  };
  return {
    stores: { ...stores, tenancy },
    hold: () => {
      armed = true;
    },
  };
}
