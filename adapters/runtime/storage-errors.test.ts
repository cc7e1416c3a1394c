import { describe, expect, it } from "bun:test";
import { errorCodeOf, isStorageUnavailable, StorageUnavailableError } from "./storage-errors.ts";

/** An error as a driver throws it: a message and a code, perhaps as the cause of another. */
function driverError(code: string, message = "failed"): Error {
  return Object.assign(new Error(message), { code });
}

describe("storage errors: which mean the store is unavailable (503)", () => {
  it("SQLite's busy, full and I/O errors, and a StorageUnavailableError, are", () => {
    for (const code of ["SQLITE_BUSY", "SQLITE_FULL", "SQLITE_IOERR_WRITE", "SQLITE_READONLY"])
      expect(isStorageUnavailable(driverError(code))).toBe(true);
    expect(isStorageUnavailable(new StorageUnavailableError("gone"))).toBe(true);
  });

  it("PostgreSQL unreachable, out of resources, shutting down, or a race lost is, also as a cause", () => {
    for (const code of [
      "ECONNREFUSED",
      "CONNECTION_CLOSED",
      "CONNECT_TIMEOUT",
      "08006",
      "53100",
      "53300",
      "57P01",
      "40001",
      "40P01",
    ])
      expect(isStorageUnavailable(driverError(code))).toBe(true);
    expect(isStorageUnavailable(new Error("append failed", { cause: driverError("57P03") }))).toBe(true);
  });

  it("a mistake in a statement or a broken constraint is not: it is a bug, answered 500", () => {
    for (const code of ["42601", "23505", "23503", "22P02", "SQLITE_CONSTRAINT", "SQLITE_ERROR"])
      expect(isStorageUnavailable(driverError(code))).toBe(false);
    expect(isStorageUnavailable(new Error("plain"))).toBe(false);
  });

  it("errorCodeOf answers the innermost code down the causes", () => {
    expect(errorCodeOf(new Error("outer", { cause: driverError("3D000") }))).toBe("3D000");
    expect(errorCodeOf(new Error("none"))).toBeUndefined();
  });
});
