/**
 * The entry point of svc-hub's single executable (`npm run build:exe`, tools/build-exe.ts): the same commands as
 * `npx svc-hub` (bin/svc-hub-commands.mjs), with the server and the tools inside this file instead of handed over
 * to a Bun of node_modules. Each is imported only when its command runs, so `svc-hub health` loads no server.
 *
 * In the executable `process.argv` is [bun, executable, ...arguments]: the tools read `process.argv.slice(2)` as
 * under `bun <script>`, so a command's name is taken out of it before its tool runs, as npm's scripts would pass
 * them.
 */
import { runSvcHub, type SvcHubTool } from "../../bin/svc-hub-commands.mjs";
import packageJson from "../../package.json" with { type: "json" };
import { packagedFilePath } from "../runtime/packaged-files.ts";

/** Makes `process.argv` what the tool would see as `bun <its script> ...args`. */
function argumentsOfTool(args: readonly string[]): void {
  process.argv.splice(2, process.argv.length - 2, ...args);
}

async function runTool(name: SvcHubTool, args: readonly string[]): Promise<void> {
  switch (name) {
    case "publish":
    case "admin-token":
      argumentsOfTool([name, ...args]);
      await import("./svc.ts");
      return;
    case "conformance": {
      // The scenarios are bundled in with the engine, which would otherwise import them from their file; the
      // known failures of `--impl svc-hub` are embedded beside where that file would be.
      const { provideBundledScenarios } = await import("../../harness/modules.ts");
      provideBundledScenarios(packagedFilePath("conformance/index.ts"), () => import("../../conformance/index.ts"));
      argumentsOfTool(args);
      await import("../../harness/cli.ts");
      return;
    }
    case "hash-secret":
      argumentsOfTool(args);
      await import("./hash-secret.ts");
      return;
  }
}

await runSvcHub(process.argv.slice(2), {
  version: () => packageJson.version,
  async start(env) {
    for (const [name, value] of Object.entries(env)) if (value !== undefined) process.env[name] = value;
    await import("../server/main.ts");
  },
  runTool,
});
