/**
 * The browser suite drives Debian's Chromium (never a browser downloaded by Playwright). This makes sure it
 * is there: nothing to do when /usr/bin/chromium exists; otherwise, as root on a Debian-like system,
 * `apt-get install -y chromium` (after `apt-get update` when the package lists do not know it yet).
 *
 *   bun tools/ensure-chromium.ts        # exit 0 once Chromium is installed, 1 with what to do when it cannot be
 */
import { existsSync } from "node:fs";

export const chromiumPath = "/usr/bin/chromium";

const manualSteps =
  "install it as root: `apt-get update && apt-get install -y chromium` (or `sudo apt-get ...`), then run the browser suite again";

/** Runs an apt-get command with its output shown as it comes (an install takes a minute or more). */
async function run(command: string[], log: (line: string) => void): Promise<boolean> {
  log(`$ ${command.join(" ")}`);
  const child = Bun.spawn(command, {
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    stdout: "inherit",
    stderr: "inherit",
  });
  return (await child.exited) === 0;
}

/** Resolves with the path of Chromium once it is installed; rejects with what to do when it cannot install it. */
export async function ensureChromium(
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<string> {
  if (existsSync(chromiumPath)) return chromiumPath;
  if (process.platform !== "linux" || !existsSync("/usr/bin/apt-get")) {
    throw new Error(`${chromiumPath} is missing and this is not a Debian-like system with apt-get: ${manualSteps}`);
  }
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${chromiumPath} is missing and installing it needs root (this process runs as uid ${process.getuid?.()}): ${manualSteps}`,
    );
  }
  log(`${chromiumPath} is missing: installing Debian's chromium package`);
  // Waits for a dpkg lock held by another apt run (unattended upgrades) instead of failing at once.
  const install = ["apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y", "chromium"];
  const installed = (await run(install, log)) || ((await run(["apt-get", "update"], log)) && (await run(install, log)));
  if (!installed || !existsSync(chromiumPath))
    throw new Error(`apt-get could not install chromium (see above): ${manualSteps}`);
  return chromiumPath;
}

if (import.meta.main) {
  try {
    process.stdout.write(`chromium: ${await ensureChromium()}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
