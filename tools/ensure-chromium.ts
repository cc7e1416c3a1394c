/**
 * The browser suite drives Debian's Chromium (never a browser downloaded by Playwright). This makes sure it
 * is there: nothing to do when /usr/bin/chromium exists; otherwise, as root on a Debian-like system,
 * `apt-get install -y chromium` (after `apt-get update` when the package lists do not know it yet).
 *
 *   bun tools/ensure-chromium.ts        # exit 0 once Chromium is installed; 3 when this machine cannot install
 *                                       # it (not Debian-like, not root), 1 when the install failed; both say what to do
 */
import {
  ensureDebianPackage,
  type PackageHost,
  PackageUnavailableError,
  packageUnavailableExitCode,
  suiteWhenUnavailable,
  thisHost,
} from "./debian-package.ts";

export const chromiumPath = "/usr/bin/chromium";

const manualSteps =
  "install it as root: `apt-get update && apt-get install -y chromium` (or `sudo apt-get ...`), then run the browser suite again";

/**
 * Chromium is missing and this machine cannot install it: not a Debian-like system, or not root. On a
 * contributor's laptop the browser suite is then skipped, saying this; in CI it fails (browserSuiteWhenUnavailable).
 */
export { PackageUnavailableError as ChromiumUnavailableError };

/** The exit code of `bun tools/ensure-chromium.ts` when Chromium cannot be had here (ChromiumUnavailableError). */
export const chromiumUnavailableExitCode = packageUnavailableExitCode;

/** What the machine offers, for the decision (tests pass their own), and where Chromium is looked for. */
export interface ChromiumHost extends PackageHost {
  readonly path: string;
}

/** Resolves with the path of Chromium once it is installed; rejects with what to do when it cannot install it. */
export function ensureChromium(
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  host: ChromiumHost = { ...thisHost, path: chromiumPath },
): Promise<string> {
  return ensureDebianPackage({ name: "chromium", path: host.path, manualSteps }, log, host);
}

/**
 * What `npm test` does with the browser suite when Chromium cannot be had here: skip it, saying why, on a
 * contributor's machine; fail in CI (CI or SVC_REQUIRE_BROWSER set, as .ci/run sets it), where it must run.
 */
export const browserSuiteWhenUnavailable = suiteWhenUnavailable;

if (import.meta.main) {
  try {
    process.stdout.write(`chromium: ${await ensureChromium()}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof PackageUnavailableError ? chromiumUnavailableExitCode : 1);
  }
}
