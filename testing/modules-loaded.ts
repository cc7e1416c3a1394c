/**
 * How many modules whose path holds `fragment` a fresh Bun has loaded once `script` (an ES module, top-level
 * await allowed) has run: a test that a start does not load what it does not need.
 */
export function modulesLoadedAfter(script: string, fragment: string): number {
  const run = Bun.spawnSync([
    process.execPath,
    "-e",
    `${script}\nconsole.log(Object.keys(require.cache).filter((path) => path.includes(${JSON.stringify(fragment)})).length);`,
  ]);
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return Number(run.stdout.toString().trim().split("\n").at(-1));
}
