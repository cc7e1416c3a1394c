export type LogLevel = "info" | "warn" | "error";

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Structured logging: one JSON object a line, with the time, the level and the message first. */
export function createJsonLogger(write: (line: string) => void, now: () => number = Date.now): Logger {
  const log = (level: LogLevel) => (message: string, fields: Record<string, unknown> = {}) =>
    write(`${JSON.stringify({ time: new Date(now()).toISOString(), level, msg: message, ...fields })}\n`);
  return { info: log("info"), warn: log("warn"), error: log("error") };
}

/** A logger that keeps its lines, for tests. */
export function createMemoryLogger(): Logger & { readonly lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createJsonLogger((line) => void lines.push(JSON.parse(line) as Record<string, unknown>));
  return Object.assign(logger, { lines });
}
