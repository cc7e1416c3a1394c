import { type ManagementError, managementError } from "../../core/errors/index.ts";
import type { Result } from "../../core/result.ts";

/**
 * For tests: throws unless `result` is the one 400 1400 of the data layer and privacy APIs, its body the
 * contract's, with a reason (ManagementError.reason) that matches `reason`. Plain throws, no assertion
 * library: it fails the same way under any test runner.
 */
export function assertInvalidRequest(result: Result<unknown, ManagementError>, reason: RegExp, what = ""): void {
  function fail(problem: string): never {
    throw new Error(`${what === "" ? "" : `${what}: `}${problem}`);
  }
  if (result.ok) fail("expected 400 1400, the rule accepted");
  const { reason: said, ...error } = result.error;
  const expected: ManagementError = managementError("invalidRequest");
  for (const field of ["kind", "code", "status", "returnCode", "message", "extra"] as const) {
    if (error[field] !== expected[field])
      fail(`${field} is ${JSON.stringify(error[field])}, not ${JSON.stringify(expected[field])}`);
  }
  if (Object.keys(error).length !== Object.keys(expected).length)
    fail(`the error has fields ${Object.keys(error).join(", ")}`);
  if (!reason.test(said ?? "")) fail(`the reason ${JSON.stringify(said)} does not match ${reason}`);
}
