import { describe, expect, it } from "bun:test";
import { startCpuHog } from "./cpu-hog.ts";

/** Waits until `condition` holds (every 50 ms, at most `limitMs`); answers whether it did. */
async function eventually(condition: () => boolean, limitMs = 10_000): Promise<boolean> {
  for (let waited = 0; waited < limitMs; waited += 50) {
    if (condition()) return true;
    await Bun.sleep(50);
  }
  return condition();
}

// A harmless hog stands in for stress-ng: what is under test is that it always stops.
const idleHog = ["sleep", "600"];

describe("the CPU hog of npm run test:busy", () => {
  it("stop() ends the hog's whole process group", async () => {
    const hog = startCpuHog({ command: idleHog, workers: 1 });
    expect(hog.running()).toBe(true);
    await hog.stop();
    expect(hog.running()).toBe(false);
    await hog.stop();
  });

  it("ends by itself once its owner is gone, even killed with SIGKILL", async () => {
    const owner = Bun.spawn(["sleep", "600"]);
    const hog = startCpuHog({ command: idleHog, workers: 1, ownerPid: owner.pid });
    try {
      expect(hog.running()).toBe(true);
      owner.kill("SIGKILL");
      await owner.exited;
      // The watchdog looks every second.
      expect(await eventually(() => !hog.running())).toBe(true);
    } finally {
      await hog.stop();
    }
  });
});
