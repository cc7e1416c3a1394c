import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServer } from "./spawn-server.ts";

/** What a run of the conformance suite against a real svc-hub server answers. */
export interface ServerRun {
  /** The suite's exit code and output. */
  readonly code: number;
  readonly output: string;
  /** The server's exit code once stopped (0: a clean stop). */
  readonly serverExitCode: number;
}

/**
 * The conformance suite against svc-hub as a real process: a server on a free port with a fresh data directory
 * and the demo, and the suite run by `runSuite` with the arguments that point it there (the target, svc-hub's
 * demo target file with its optional fixtures, the admin token, svc-hub's expectations). `npm test` runs it
 * (tools/test-all.ts) and so does `npm run compatibility` (tools/compatibility.ts), which keeps the
 * compatibility matrix it writes.
 */
export async function runSuiteAgainstServer(
  root: string,
  extraArgs: readonly string[],
  runSuite: (args: string[]) => Promise<{ code: number; output: string }>,
  logFile?: string,
  /** The server's store and anything else it should be started with (default: libSQL in the data directory). */
  env?: Record<string, string>,
): Promise<ServerRun> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-conformance-"));
  const adminToken = `ci-${crypto.randomUUID()}`;
  let server: Awaited<ReturnType<typeof spawnServer>> | null = null;
  try {
    server = await spawnServer({ root, dataDir, adminToken, ...(logFile ? { logFile } : {}), ...(env ? { env } : {}) });
    const { code, output } = await runSuite([
      join(root, "node_modules", ".bin", "bun"),
      "harness/cli.ts",
      "--target",
      server.url,
      // svc-hub's demo with the optional fixtures it has (the target file's base gives way to --target).
      "--target-file",
      join(root, "conformance", "targets", "svc-hub-demo.json"),
      "--admin-token",
      adminToken,
      "--impl",
      "svc-hub",
      ...extraArgs,
    ]);
    const serverExitCode = await server.stop();
    server = null;
    return { code, output, serverExitCode };
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
