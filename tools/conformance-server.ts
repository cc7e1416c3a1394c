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
 * The harness's arguments for svc-hub's demo: its target file (the optional fixtures it has), the admin token
 * (virtual clock, wait) and its known failures, for a svc-hub the suite is run against however it was started.
 */
export function svcHubDemoArgs(root: string, adminToken: string): string[] {
  return [
    "--target-file",
    join(root, "conformance", "targets", "svc-hub-demo.json"),
    "--admin-token",
    adminToken,
    "--impl",
    "svc-hub",
  ];
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
  options: {
    /** The servers' store and anything else they are started with (default: libSQL in the data directory). */
    readonly env?: Record<string, string>;
    /**
     * Nodes on one store (default 1): with three, the management APIs are asked on the first, collection on
     * the second and the visitor-data API on the third (the target's three roots).
     */
    readonly nodes?: number;
    /**
     * false: the suite as others run it, `npm run conformance -- --target URL`: the server is started without
     * SVC_ADMIN_TOKEN (it makes its own, which the suite is not told), and the suite gets neither the admin token
     * nor svc-hub's target file nor its expectations: no virtual clock and no wait, the demo's fixtures. Default true.
     */
    readonly adminToken?: boolean;
    /** What runs each server, and in which folder (default: `npm start`'s command in `root`). */
    readonly server?: { readonly command: readonly string[]; readonly cwd: string };
  } = {},
): Promise<ServerRun> {
  const nodeCount = options.nodes ?? 1;
  const dataDirs = Array.from({ length: nodeCount }, () => mkdtempSync(join(tmpdir(), "svc-hub-conformance-")));
  const withToken = options.adminToken ?? true;
  const adminToken = withToken ? `ci-${crypto.randomUUID()}` : undefined;
  const servers: Array<Awaited<ReturnType<typeof spawnServer>>> = [];
  try {
    for (const [index, dataDir] of dataDirs.entries()) {
      const log = logFile && nodeCount > 1 ? logFile.replace(/(\.log)?$/, `.node-${index + 1}$1`) : logFile;
      servers.push(
        await spawnServer({
          root,
          dataDir,
          ...(adminToken ? { adminToken } : {}),
          ...(log ? { logFile: log } : {}),
          ...(options.env ? { env: options.env } : {}),
          ...(options.server ?? {}),
        }),
      );
    }
    const urlOf = (index: number) => (servers[index % servers.length] as { url: string }).url;
    const { code, output } = await runSuite([
      join(root, "node_modules", ".bin", "bun"),
      "harness/cli.ts",
      "--target",
      urlOf(0),
      ...(nodeCount > 1 ? ["--collect-url", urlOf(1), "--moments-url", urlOf(2)] : []),
      // svc-hub's demo with the optional fixtures it has (the target file's base gives way to --target).
      ...(adminToken ? svcHubDemoArgs(root, adminToken) : []),
      ...extraArgs,
    ]);
    let serverExitCode = 0;
    for (const server of servers.splice(0)) serverExitCode = Math.max(serverExitCode, await server.stop());
    return { code, output, serverExitCode };
  } finally {
    for (const server of servers) await server.stop();
    for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
  }
}
