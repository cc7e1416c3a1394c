import { describe, expect, it } from "bun:test";
import { invalidRequestBecause, managementError } from "../../core/errors/index.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { catalogueResponse } from "./error-mapping.ts";
import { withRequestLog } from "./request-log.ts";

describe("the request log", () => {
  it("keeps a refusal's reason (the answer's reason header) on its line, and no query string", async () => {
    const logger = createMemoryLogger();
    const handle = withRequestLog(() => catalogueResponse(invalidRequestBecause("the body is empty")), logger);
    await handle(
      new Request("http://svc.test/v1/dle/accounts/acme/profiles/main/datalayers/home?utk=secret", { method: "POST" }),
    );
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatchObject({
      msg: "request",
      method: "POST",
      path: "/v1/dle/accounts/acme/profiles/main/datalayers/home",
      status: 400,
      reason: "the body is empty",
    });
  });

  it("has no reason for an answer without one", async () => {
    const logger = createMemoryLogger();
    await withRequestLog(
      () => catalogueResponse(managementError("invalidRequest")),
      logger,
    )(new Request("http://svc.test/v1/x"));
    await withRequestLog(
      () => new Response("{}", { headers: { "x-svc-hub-reason": "not a refusal" } }),
      logger,
    )(new Request("http://svc.test/v1/y"));
    expect(logger.lines.map((line) => "reason" in line)).toEqual([false, false]);
  });
});
