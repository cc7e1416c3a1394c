import { StorageUnavailableError } from "../../core/errors/index.ts";

export { StorageUnavailableError };

const unavailableCodes = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL|NOLFS)/;
/**
 * PostgreSQL (the SQLSTATE of the server, or postgres.js's code for a connection): the server cannot be reached
 * or its connection broke (class 08, and the client's own codes), it is out of disk, memory or connections
 * (class 53), it is shutting down or starting (57P01..57P03), or the statement lost a race it may win when
 * tried again (40001 serialization failure, 40P01 deadlock, 55P03 lock not available).
 */
const unavailablePostgresCodes =
  /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[1-3]|40001|40P01|55P03|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|CONNECT_TIMEOUT)$/;
const unavailableMessages =
  /database is locked|database or disk is full|disk I\/O error|unable to open database|no space left/i;

/** True when an error (or one of its causes) says the store cannot be reached or written right now. */
export function isStorageUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 8; depth += 1) {
    if (current instanceof StorageUnavailableError) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (unavailableCodes.test(code) || unavailablePostgresCodes.test(code))) return true;
    const message = (current as { message?: unknown }).message;
    if (typeof message === "string" && unavailableMessages.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The innermost `code` down an error's chain of causes (SQLITE_BUSY, ENOTDIR, ...), if any. */
export function errorCodeOf(error: unknown): string | undefined {
  let found: string | undefined;
  for (let current: unknown = error, depth = 0; current && depth < 8; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") found = code;
    current = (current as { cause?: unknown }).cause;
  }
  return found;
}
