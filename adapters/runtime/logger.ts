import type { Logger } from "../../core/ports/logger.port.ts";

/** The levels, least severe first. */
export const logLevels = ["info", "warn", "error"] as const;
export type LogLevel = (typeof logLevels)[number];

/**
 * Structured logging: one JSON object a line, with the time, the level and the message first. Lines below
 * `least` (SVC_LOG_LEVEL) are not written.
 */
export function createJsonLogger(
  write: (line: string) => void,
  now: () => number = Date.now,
  least: LogLevel = "info",
): Logger {
  const ignored = () => undefined;
  const log = (level: LogLevel) =>
    logLevels.indexOf(level) < logLevels.indexOf(least)
      ? ignored
      : (message: string, fields: Record<string, unknown> = {}) =>
          write(`${JSON.stringify({ time: new Date(now()).toISOString(), level, msg: message, ...fields })}\n`);
  return { info: log("info"), warn: log("warn"), error: log("error") };
}

/**
 * Lines written together, once per turn of the event loop (and at once past 64 KiB): under load every request
 * logs a line, and a write call per line cost as much as a tenth of the request. `flush` writes what is
 * waiting (on exit).
 */
export function batchedWriter(
  write: (text: string) => void,
  maxBytes = 64 * 1024,
): { write(line: string): void; flush(): void } {
  let waiting: string[] = [];
  let size = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (waiting.length === 0) return;
    const text = waiting.join("");
    waiting = [];
    size = 0;
    write(text);
  };
  return {
    write(line) {
      waiting.push(line);
      size += line.length;
      if (size >= maxBytes) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

/** A logger that keeps its lines, for tests. */
export function createMemoryLogger(): Logger & { readonly lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createJsonLogger((line) => void lines.push(JSON.parse(line) as Record<string, unknown>));
  return Object.assign(logger, { lines });
}
