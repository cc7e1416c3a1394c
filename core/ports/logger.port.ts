/** Structured logging: a message and its fields. The adapters write it (one JSON object a line in svc-hub). */
export interface Logger {
  /** Detail for finding a fault, left out unless SVC_LOG_LEVEL=debug. */
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
