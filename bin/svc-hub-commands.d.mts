/** Types of svc-hub-commands.mjs, for the single executable's entry (TypeScript reads a `.mjs` file's types from its `.d.mts`). */
export type SvcHubTool = "publish" | "admin-token" | "conformance" | "hash-secret";

export interface SvcHubHost {
  /** The version `--version` prints. */
  version(): string;
  /** Starts the server with this environment (the caller's, with the options of `start` applied). */
  start(env: Record<string, string | undefined>): void | Promise<void>;
  /** Runs a tool with the arguments after its command's name. */
  runTool(name: SvcHubTool, args: readonly string[]): void | Promise<void>;
}

export declare function runSvcHub(argv: readonly string[], host: SvcHubHost): Promise<void>;
