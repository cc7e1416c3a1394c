/**
 * The package's size (issue 41): what `npm pack` makes of svc-hub, as a project that installs it downloads it.
 * Target: at most 1.5 MB packed. dist/ is built first, as npm pack's prepack script builds it; `--dry-run` writes no
 * tarball.
 */
import type { CaseReport } from "../lib/report.ts";
import type { BenchContext } from "../lib/servers.ts";

/** The bound of issue 41 on the packed tarball; tools/packed-install.test.ts checks the same. */
export const maxPackedBytes = 1_500_000;

export function packageSizeCase(ctx: BenchContext): CaseReport {
  const building = Bun.spawnSync(["npm", "run", "build"], { cwd: ctx.root, stdout: "pipe", stderr: "pipe" });
  if (building.exitCode !== 0) throw new Error(`npm run build failed:\n${building.stderr.toString()}`);
  const packing = Bun.spawnSync(["npm", "pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ctx.root,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (packing.exitCode !== 0) throw new Error(`npm pack --dry-run failed:\n${packing.stderr.toString()}`);
  const [packed] = JSON.parse(packing.stdout.toString()) as Array<{
    size: number;
    unpackedSize: number;
    entryCount: number;
  }>;
  if (packed === undefined) throw new Error("npm pack --dry-run described no tarball");
  const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;
  ctx.log(`package size: ${mb(packed.size)} packed, ${mb(packed.unpackedSize)} unpacked, ${packed.entryCount} files`);
  return {
    id: "package",
    title: "Package size",
    outcome: "measured",
    rows: [],
    details: [
      "`npm pack --dry-run --json` after `npm run build` (the `files` list of package.json, the API reference's renderer",
      "included as brotli and gzip); `bun bench/run.ts --only package` measures it alone:",
      "",
      "| Packed | Unpacked | Files |",
      "|---:|---:|---:|",
      `| ${mb(packed.size)} | ${mb(packed.unpackedSize)} | ${packed.entryCount} |`,
    ],
    targets: [
      {
        goal: "package size: at most 1.5 MB packed",
        met: packed.size <= maxPackedBytes,
        found: `${mb(packed.size)} packed in ${packed.entryCount} files`,
      },
    ],
  };
}
