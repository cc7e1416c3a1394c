/** Types of server-command.mjs, for the tests (TypeScript reads a `.mjs` file's types from its `.d.mts`). */
export declare const packageRoot: string;
export declare const serverEntry: string;
export declare function findBun(): string;
export declare function serverCommand(): { command: string; args: string[] };
export declare function describeSpawnFailure(command: string, error: unknown): string;
export declare function handOverToBun(
  name: string,
  script: string,
  args: readonly string[],
  env?: Record<string, string | undefined>,
): never;
