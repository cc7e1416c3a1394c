/**
 * The few programs the slow suites drive that come from Debian, never downloaded otherwise: Chromium for the
 * browser suites (ensure-chromium.ts), stress-ng for `npm run test:busy` (cpu-hog.ts). Each is installed when
 * missing: as root on a Debian-like system, `apt-get install -y <package>` (after `apt-get update` when the
 * package lists do not know it yet).
 */
import { existsSync } from "node:fs";

/** A Debian package and the program of it that a suite runs. */
export interface DebianPackage {
  /** The package's name, `chromium`. */
  readonly name: string;
  /** The program it installs, `/usr/bin/chromium`. */
  readonly path: string;
  /** What to do by hand, said when it cannot be installed here. */
  readonly manualSteps: string;
}

/** What the machine offers, for the decision (tests pass their own). */
export interface PackageHost {
  readonly exists: (path: string) => boolean;
  readonly platform: string;
  readonly uid: number | undefined;
}

export const thisHost: PackageHost = {
  exists: existsSync,
  platform: process.platform,
  uid: process.getuid?.(),
};

/**
 * The program is missing and this machine cannot install it: not a Debian-like system, or not root. On a
 * contributor's machine the suite needing it is then skipped, saying this; in CI it fails.
 */
export class PackageUnavailableError extends Error {
  override readonly name = "PackageUnavailableError";
}

/** The exit code of a tool that cannot have its package here (PackageUnavailableError). */
export const packageUnavailableExitCode = 3;

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

/** Resolves with the program's path once the package is installed; rejects with what to do when it cannot install it. */
export async function ensureDebianPackage(
  wanted: DebianPackage,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  host: PackageHost = thisHost,
): Promise<string> {
  if (host.exists(wanted.path)) return wanted.path;
  if (host.platform !== "linux" || !host.exists("/usr/bin/apt-get")) {
    throw new PackageUnavailableError(
      `${wanted.path} is missing and this is not a Debian-like system with apt-get: ${wanted.manualSteps}`,
    );
  }
  if (host.uid !== 0) {
    throw new PackageUnavailableError(
      `${wanted.path} is missing and installing it needs root (this process runs as uid ${host.uid}): ${wanted.manualSteps}`,
    );
  }
  log(`${wanted.path} is missing: installing Debian's ${wanted.name} package`);
  // Waits for a dpkg lock held by another apt run (unattended upgrades) instead of failing at once.
  const install = ["apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y", wanted.name];
  const installed = (await run(install, log)) || ((await run(["apt-get", "update"], log)) && (await run(install, log)));
  if (!installed || !host.exists(wanted.path))
    throw new Error(`apt-get could not install ${wanted.name} (see above): ${wanted.manualSteps}`);
  return wanted.path;
}

/**
 * What `npm test` does with a suite whose program cannot be had here: skip it, saying why, on a contributor's
 * machine; fail in CI (CI or SVC_REQUIRE_BROWSER set, as .ci/run sets it), where it must run.
 */
export function suiteWhenUnavailable(env: Readonly<Record<string, string | undefined>>): "skip" | "fail" {
  const set = (name: string) =>
    env[name] !== undefined && env[name] !== "" && env[name] !== "0" && env[name] !== "false";
  return set("CI") || set("SVC_REQUIRE_BROWSER") ? "fail" : "skip";
}
