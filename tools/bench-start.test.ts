/**
 * Issue 41, "Done when": `bun run bench` has a start section, time to ready and idle memory for `npm start` and
 * the executable (bench/cases/start.ts). Its figures are not checked here (a benchmark, not a timed test): that
 * it measures, and says so when the executable is not built.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { executablePath, measureStart, medianOf, startCase } from "../bench/cases/start.ts";
import { parseArgs } from "../bench/run.ts";

const root = resolve(import.meta.dir, "..");

describe("bench: the start case", () => {
  test("the median is the middle value, or the mean of the two middle ones", () => {
    expect(medianOf([5, 1, 3])).toBe(3);
    expect(medianOf([4, 1, 3, 2])).toBe(2.5);
  });

  test("--only start selects it", () => {
    expect(parseArgs(["--only", "start"]).only).toEqual(["start"]);
  });

  test("one start of `npm start` on a fresh data directory: a time to ready and the idle memory", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "svc-hub-bench-start-"));
    try {
      const run = await measureStart(
        { label: "npm start", command: process.execPath, args: ["adapters/server/main.ts"], cwd: root },
        scratch,
      );
      expect(run.readyMs).toBeGreaterThan(0);
      expect(run.idleRssMb).toBeGreaterThan(0);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test("the case reports its targets, the executable's as not measured when it is not built", async () => {
    const built = existsSync(join(root, executablePath));
    const scratch = mkdtempSync(join(tmpdir(), "svc-hub-bench-start-"));
    try {
      const report = await startCase({
        root,
        scratch,
        quick: true,
        wrk: { threads: 1, connections: 1, seconds: 1, warmupSeconds: 1 },
        log: () => undefined,
      });
      expect(report.outcome).toBe("measured");
      expect(report.targets.map((target) => target.goal)).toEqual([
        expect.stringContaining("`npm start`: ready (GET /readyz 200) at most 600 ms"),
        expect.stringContaining("The executable: ready at most 300 ms"),
        expect.stringContaining("`npm start`: idle memory"),
        ...(built ? [expect.stringContaining("The executable: idle memory")] : []),
      ]);
      if (built) expect(report.targets[1]?.met).not.toBeNull();
      else expect(report.targets[1]).toMatchObject({ met: null, found: expect.stringContaining("not measured") });
      expect(report.details.join("\n")).toContain("| `npm start` (bun adapters/server/main.ts) |");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
