/**
 * An error for the log: `Name: message`, then what caused it (`; caused by Name: message`, a few levels
 * deep), so that the driver's own reason (`SQLITE_BUSY: database is locked`) is seen. A query wrapper's
 * message (drizzle's `Failed query: <sql>\nparams: <values>`) is left out where it has a cause, and its
 * bound values always: they are the request's data, e-mail addresses and visitor IDs among them, which the
 * log must not keep.
 */
export function describeError(error: unknown): string {
  return error instanceof Error
    ? `${safeText(() => error.name)}: ${describeErrorMessage(error)}`
    : safeText(() => String(error));
}

/** describeError without the first error's name. */
export function describeErrorMessage(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null && !seen.has(current); depth += 1) {
    seen.add(current);
    if (!(current instanceof Error)) {
      const value = current;
      parts.push(safeText(() => String(value)));
      break;
    }
    const error: Error = current;
    const text = typeof error.message === "string" ? error.message : safeText(() => String(error.message));
    const wrapsQuery = text.startsWith("Failed query:");
    if (!wrapsQuery || error.cause === undefined) {
      const message = wrapsQuery ? withoutQueryValues(text) : text;
      parts.push(depth === 0 ? message : `${safeText(() => error.name)}: ${message}`);
    }
    current = error.cause;
  }
  return parts.join("; caused by ");
}

/**
 * The call frames of an error's stack, under describeError's line: the stack's own first lines repeat the
 * message, a failed query's bound values included.
 */
export function stackFramesOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || typeof error.stack !== "string") return undefined;
  const frames = error.stack.split("\n").filter((line) => /^\s+at /.test(line));
  return frames.length > 0 ? frames.join("\n") : undefined;
}

function withoutQueryValues(message: string): string {
  return message.split("\nparams:")[0] ?? "";
}

/** Text for the log even of a value whose conversion throws (an object without a prototype). */
function safeText(text: () => string): string {
  try {
    return text();
  } catch {
    return "(unprintable)";
  }
}
