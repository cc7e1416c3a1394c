import { describe, expect, it } from "bun:test";

describe("the package's exports", () => {
  it('other hosts import the core as "svc-hub/core"', async () => {
    const core = await import("svc-hub/core");
    expect(core.managementError("accountNotFound")).toMatchObject({ status: 404, returnCode: 1240, message: "Account was not found" });
    expect(typeof core.ok).toBe("function");
  });

  it('and the conformance engine as "svc-hub/harness"', async () => {
    const harness = await import("svc-hub/harness");
    expect(typeof harness.runScenarios).toBe("function");
    expect(typeof harness.urlTarget).toBe("function");
  });
});
