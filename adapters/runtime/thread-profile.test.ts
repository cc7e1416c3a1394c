import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfTimes } from "../../bench/profile-summary.ts";
import { profileThisThread, profileWindowOf } from "./thread-profile.ts";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe("a thread's CPU profile over a window (SVC_CPU_PROFILE_DIR)", () => {
  it("reads the window from the environment: none without a folder, 0 s after the start and 10 s long by default", () => {
    expect(profileWindowOf({})).toBeNull();
    expect(profileWindowOf({ SVC_CPU_PROFILE_DIR: "" })).toBeNull();
    expect(profileWindowOf({ SVC_CPU_PROFILE_DIR: "/p" })).toEqual({ dir: "/p", delayMs: 0, durationMs: 10_000 });
    expect(
      profileWindowOf({ SVC_CPU_PROFILE_DIR: "/p", SVC_CPU_PROFILE_DELAY_S: "8", SVC_CPU_PROFILE_S: "2.5" }),
    ).toEqual({ dir: "/p", delayMs: 8_000, durationMs: 2_500 });
    // A value that is no duration keeps the default rather than a window that never opens or never ends.
    expect(profileWindowOf({ SVC_CPU_PROFILE_DIR: "/p", SVC_CPU_PROFILE_S: "-1" })?.durationMs).toBe(10_000);
  });

  it("writes <thread>-<pid>.cpuprofile once the window ends, with the functions that ran in it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-profile-test-"));
    folders.push(dir);
    profileThisThread("http", { dir, delayMs: 0, durationMs: 300 });
    const spinUntil = Date.now() + 250;
    let spins = 0;
    function busyProfiledWork() {
      while (Date.now() < spinUntil) spins += 1;
    }
    await Bun.sleep(10);
    busyProfiledWork();
    const deadline = Date.now() + 5_000;
    while (readdirSync(dir).length === 0 && Date.now() < deadline) await Bun.sleep(50);
    expect(readdirSync(dir)).toEqual([`http-${process.pid}.cpuprofile`]);
    const profile = JSON.parse(readFileSync(join(dir, `http-${process.pid}.cpuprofile`), "utf8"));
    const { total, rows } = selfTimes(profile);
    expect(spins).toBeGreaterThan(0);
    expect(total).toBeGreaterThan(0);
    expect(rows.some((row) => row.name.startsWith("busyProfiledWork"))).toBe(true);
  });
});
