import type { Logger } from "../../core/ports/index.ts";

/** The levels, least severe first. */
export const logLevels = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof logLevels)[number];

/** SVC_LOG_FORMAT: JSON lines (the default, for machines) or one readable line an entry (for a terminal). */
export const logFormats = ["json", "pretty"] as const;
export type LogFormat = (typeof logFormats)[number];

export interface LoggerOptions {
  readonly write: (line: string) => void;
  readonly now?: () => number;
  /** The least severe level written (SVC_LOG_LEVEL). */
  readonly least?: LogLevel;
  readonly format?: LogFormat;
  /** Pretty lines only: the level in colour (a terminal). */
  readonly color?: boolean;
}

/**
 * A field whose name says it holds a secret: its value is never written, at any depth. The request line never
 * carries one (the query is left out), but a caller's fields might: an error's request, a header set.
 */
const secretFieldName = /pass(word|wd)|secret|token|^utk$|authori[sz]ation|cookie|api[-_]?key/i;
/** What a secret field's value is written as. */
export const redacted = "[redacted]";
/** How deep redaction looks into nested fields; deeper values are written as they are cut off. */
const redactionDepth = 6;

/**
 * The fields with every secret's value replaced by `[redacted]`. Fields without one are returned as they are
 * (the request line, every request, allocates nothing more).
 */
export function redactSecrets(fields: Record<string, unknown>, depth = 0): Record<string, unknown> {
  let copy: Record<string, unknown> | null = null;
  for (const name in fields) {
    const value = fields[name];
    let written = value;
    if (secretFieldName.test(name)) written = value === null || value === undefined ? value : redacted;
    else if (typeof value === "object" && value !== null)
      written =
        depth >= redactionDepth
          ? "[…]"
          : Array.isArray(value)
            ? redactArray(value, depth + 1)
            : redactSecrets(value as Record<string, unknown>, depth + 1);
    if (written !== value) {
      copy ??= { ...fields };
      copy[name] = written;
    }
  }
  return copy ?? fields;
}

function redactArray(values: readonly unknown[], depth: number): readonly unknown[] {
  let changed = false;
  const copy = values.map((value) => {
    if (typeof value !== "object" || value === null) return value;
    const written = Array.isArray(value)
      ? redactArray(value, depth + 1)
      : redactSecrets(value as Record<string, unknown>, depth);
    if (written !== value) changed = true;
    return written;
  });
  return changed ? copy : values;
}

/**
 * Structured logging: one JSON object a line, with the time, the level and the message first; or, with
 * `format: "pretty"`, one readable line (time, level, message, then the fields as name=value). Lines below
 * `least` (SVC_LOG_LEVEL) are not written; secrets in the fields are redacted (redactSecrets).
 */
export function createLogger(options: LoggerOptions): Logger {
  const { write, now = Date.now, least = "info", format = "json", color = false } = options;
  const line = format === "pretty" ? prettyLine(color) : jsonLine;
  const ignored = () => undefined;
  const log = (level: LogLevel) =>
    logLevels.indexOf(level) < logLevels.indexOf(least)
      ? ignored
      : (message: string, fields: Record<string, unknown> = {}) =>
          write(line(new Date(now()).toISOString(), level, message, redactSecrets(fields)));
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

/** createLogger with JSON lines: what the server writes on stdout unless SVC_LOG_FORMAT=pretty. */
export function createJsonLogger(
  write: (line: string) => void,
  now: () => number = Date.now,
  least: LogLevel = "info",
): Logger {
  return createLogger({ write, now, least, format: "json" });
}

function jsonLine(time: string, level: LogLevel, message: string, fields: Record<string, unknown>): string {
  return `${JSON.stringify({ time, level, msg: message, ...fields })}\n`;
}

const levelColors: Record<LogLevel, string> = {
  debug: "\x1b[90m",
  info: "\x1b[32m",
  warn: "\x1b[33m",
  error: "\x1b[31m",
};

/** `12:00:00.000 INFO  request method=GET path=/healthz status=200 ms=0.4`: strings with a space or quote are quoted. */
function prettyLine(color: boolean) {
  return (time: string, level: LogLevel, message: string, fields: Record<string, unknown>): string => {
    const label = level.toUpperCase().padEnd(5);
    const shown = color ? `${levelColors[level]}${label}\x1b[0m` : label;
    const parts = [`${time.slice(11, 23)} ${shown} ${message}`];
    for (const name in fields) {
      const value = fields[name];
      if (value === undefined) continue;
      parts.push(`${name}=${prettyValue(value)}`);
    }
    return `${parts.join(" ")}\n`;
  };
}

function prettyValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
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
export function createMemoryLogger(
  least: LogLevel = "info",
): Logger & { readonly lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createJsonLogger(
    (line) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    Date.now,
    least,
  );
  return Object.assign(logger, { lines });
}
