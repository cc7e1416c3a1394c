/**
 * The browser suite drives Debian's Chromium (never a browser downloaded by Playwright). This makes sure it
 * is there: nothing to do when /usr/bin/chromium exists; otherwise, as root on a Debian-like system,
 * `apt-get install -y chromium` (after `apt-get update` when the package lists do not know it yet).
 *
 *   bun tools/ensure-chromium.ts        # exit 0 once Chromium is installed; 3 when this machine cannot install
 *                                       # it (not Debian-like, not root), 1 when the install failed; both say what to do
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

/**
 * Chromium is missing and this machine cannot install it: not a Debian-like system, or not root. On a
 * contributor's laptop the browser suite is then skipped, saying this; in CI it fails (browserSuiteWhenUnavailable).
 */
export class ChromiumUnavailableError extends Error {
  override readonly name = "ChromiumUnavailableError";
}

/** The exit code of `bun tools/ensure-chromium.ts` when Chromium cannot be had here (ChromiumUnavailableError). */
export const chromiumUnavailableExitCode = 3;

/** What the machine offers, for the decision (tests pass their own). */
export interface ChromiumHost {
  readonly path: string;
  readonly exists: (path: string) => boolean;
  readonly platform: string;
  readonly uid: number | undefined;
}

const thisHost: ChromiumHost = {
  path: chromiumPath,
  exists: existsSync,
  platform: process.platform,
  uid: process.getuid?.(),
};

/** Resolves with the path of Chromium once it is installed; rejects with what to do when it cannot install it. */
export async function ensureChromium(
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  host: ChromiumHost = thisHost,
): Promise<string> {
  if (host.exists(host.path)) return host.path;
  if (host.platform !== "linux" || !host.exists("/usr/bin/apt-get")) {
    throw new ChromiumUnavailableError(
      `${host.path} is missing and this is not a Debian-like system with apt-get: ${manualSteps}`,
    );
  }
  if (host.uid !== 0) {
    throw new ChromiumUnavailableError(
      `${host.path} is missing and installing it needs root (this process runs as uid ${host.uid}): ${manualSteps}`,
    );
  }
  log(`${chromiumPath} is missing: installing Debian's chromium package`);
  // Waits for a dpkg lock held by another apt run (unattended upgrades) instead of failing at once.
  const install = ["apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y", "chromium"];
  const installed = (await run(install, log)) || ((await run(["apt-get", "update"], log)) && (await run(install, log)));
  if (!installed || !host.exists(host.path))
    throw new Error(`apt-get could not install chromium (see above): ${manualSteps}`);
  return host.path;
}

/**
 * What `npm test` does with the browser suite when Chromium cannot be had here: skip it, saying why, on a
 * contributor's machine; fail in CI (CI or SVC_REQUIRE_BROWSER set, as .ci/run sets it), where it must run.
 */
export function browserSuiteWhenUnavailable(env: Readonly<Record<string, string | undefined>>): "skip" | "fail" {
  const set = (name: string) =>
    env[name] !== undefined && env[name] !== "" && env[name] !== "0" && env[name] !== "false";
  return set("CI") || set("SVC_REQUIRE_BROWSER") ? "fail" : "skip";
}

if (import.meta.main) {
  try {
    process.stdout.write(`chromium: ${await ensureChromium()}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof ChromiumUnavailableError ? chromiumUnavailableExitCode : 1);
  }
}
