import assert from "node:assert/strict";
import type { Result } from "../result.ts";
import { managementError, type ManagementError } from "./management.errors.ts";

/**
 * For tests: `result` is the one 400 1400 of the data layer and privacy APIs, its body the contract's, with
 * a reason (ManagementError.reason) that matches `reason`.
 */
export function assertInvalidRequest(result: Result<unknown, ManagementError>, reason: RegExp, what = ""): void {
  assert.equal(result.ok, false, what);
  if (result.ok) return;
  const { reason: said, ...error } = result.error;
  assert.deepEqual(error, managementError("invalidRequest"), what);
  assert.match(said ?? "", reason, what);
}
