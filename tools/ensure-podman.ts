/**
 * The image suite builds and runs svc-hub's image with Debian's podman, never with an image pulled from a
 * registry. This makes sure it can:
 *   1. podman, runc and debootstrap are installed (as root on a Debian-like system, with apt-get, when missing);
 *   2. /etc/containers/containers.conf lets podman run containers as root without systemd: no default ulimits
 *      (a container may not raise them here), cgroupfs rather than systemd's cgroups, and runc; every other
 *      setting of the file is kept;
 *   3. podman has the base image, `docker.io/library/debian:bookworm-slim`: when it is missing, it is made from
 *      Debian's packages (`debootstrap --variant=minbase bookworm`, from the mirror apt uses here), slimmed as
 *      Debian's official slim image is (no manuals, documentation or translations), and imported under that name.
 *      The tarball is kept in a cache folder outside the clone (~/.cache/svc-hub/), so a podman store that was
 *      emptied gets it back in seconds instead of minutes.
 *
 *   bun tools/ensure-podman.ts     # exit 0 once podman can build the image; 3 when this machine cannot have
 *                                  # podman (not Debian-like, not root), 1 when a step failed; both say what to do
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import {
  ensureDebianPackage,
  type PackageHost,
  PackageUnavailableError,
  packageUnavailableExitCode,
  thisHost,
} from "./debian-package.ts";

/** The name the Dockerfile's FROM resolves to, as a registry would give it. */
export const baseImage = "docker.io/library/debian:bookworm-slim";
export const containersConfPath = "/etc/containers/containers.conf";

const manualSteps =
  "install them as root: `apt-get update && apt-get install -y podman runc debootstrap` (or `sudo apt-get ...`), then run the image suite again";

/** The programs the suite needs, each from its Debian package. */
const packages = [
  { name: "podman", path: "/usr/bin/podman" },
  { name: "runc", path: "/usr/sbin/runc" },
  { name: "debootstrap", path: "/usr/sbin/debootstrap" },
] as const;

/** What containers.conf must hold for podman to run containers as root on a machine without systemd. */
export const containersSettings: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  containers: { default_ulimits: "[]" },
  engine: { cgroup_manager: '"cgroupfs"', runtime: '"runc"' },
};

/**
 * `text` (a containers.conf, possibly empty) with `wanted` set: a key already there is given the wanted value (a
 * value that spans lines, an array, is replaced whole), a missing key is added at the top of its table, a missing
 * table at the end. Every other line stays as it was, comments included.
 */
export function withContainersSettings(
  text: string,
  wanted: Readonly<Record<string, Readonly<Record<string, string>>>> = containersSettings,
): string {
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  const output: string[] = [];
  const done = new Set<string>();
  let table: string | null = null;
  const flushMissing = (name: string | null) => {
    if (name === null) return;
    for (const [key, value] of Object.entries(wanted[name] ?? {}))
      if (!done.has(`${name}.${key}`)) {
        // Right after the header: before the table's own lines, where a reader looks first.
        const header = output.findLastIndex((line) => tableOf(line) === name);
        output.splice(header + 1, 0, `${key} = ${value}`);
        done.add(`${name}.${key}`);
      }
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const header = tableOf(line);
    if (header !== null) {
      flushMissing(table);
      table = header;
      output.push(line);
      continue;
    }
    const key = /^\s*([A-Za-z0-9_-]+)\s*=\s*(.*)$/.exec(line);
    const value = table !== null && key ? wanted[table]?.[key[1] as string] : undefined;
    if (table === null || !key || value === undefined) {
      output.push(line);
      continue;
    }
    // An array that goes on over the next lines is replaced whole.
    let rest = key[2] as string;
    while (rest.trimStart().startsWith("[") && !rest.includes("]") && index + 1 < lines.length)
      rest += lines[++index] as string;
    output.push(`${key[1]} = ${value}`);
    done.add(`${table}.${key[1]}`);
  }
  flushMissing(table);
  for (const [name, keys] of Object.entries(wanted)) {
    const missing = Object.entries(keys).filter(([key]) => !done.has(`${name}.${key}`));
    if (missing.length === 0) continue;
    if (output.length > 0 && output.at(-1) !== "") output.push("");
    output.push(`[${name}]`, ...missing.map(([key, value]) => `${key} = ${value}`));
  }
  return `${output.join("\n")}\n`;
}

/** The table a `[name]` line opens, or null for any other line (an array of tables `[[name]]` included). */
function tableOf(line: string): string | null {
  const match = /^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$/.exec(line);
  return match ? (match[1] as string) : null;
}

/**
 * The Debian mirror apt uses here (its first `deb` source for the main archive), so that debootstrap fetches from
 * where apt already can; Debian's own when none is found.
 */
export function debianMirrorOf(sources: readonly string[]): string {
  for (const text of sources) {
    // deb822 (.sources): "URIs: http://deb.debian.org/debian" in a stanza of Types: deb.
    for (const stanza of text.split(/\n\s*\n/)) {
      const types = /^Types:\s*(.+)$/m.exec(stanza)?.[1]?.split(/\s+/) ?? [];
      const uris = /^URIs:\s*(.+)$/m.exec(stanza)?.[1]?.split(/\s+/) ?? [];
      const suites = /^Suites:\s*(.+)$/m.exec(stanza)?.[1]?.split(/\s+/) ?? [];
      const uri = uris.find((candidate) => /^https?:\/\//.test(candidate));
      if (types.includes("deb") && uri && suites.includes("bookworm")) return uri.replace(/\/$/, "");
    }
    // One-line format: "deb [options] http://deb.debian.org/debian bookworm main".
    for (const line of text.split("\n")) {
      const match = /^\s*deb\s+(?:\[[^\]]*\]\s+)?(https?:\/\/\S+)\s+bookworm\s/.exec(line);
      if (match) return (match[1] as string).replace(/\/$/, "");
    }
  }
  return "http://deb.debian.org/debian";
}

function aptSources(): string[] {
  const files = ["/etc/apt/sources.list"];
  if (existsSync("/etc/apt/sources.list.d"))
    for (const name of readdirSync("/etc/apt/sources.list.d").sort())
      if (name.endsWith(".sources") || name.endsWith(".list")) files.push(join("/etc/apt/sources.list.d", name));
  return files.filter((file) => existsSync(file)).map((file) => readFileSync(file, "utf8"));
}

/** Where the base image's tarball is kept between runs: outside the clone, so a fresh clone finds it too. */
export function cacheDirOf(env: Readonly<Record<string, string | undefined>>): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "svc-hub");
}

/**
 * What Debian's official slim image leaves out (debuerreotype's --slimify): manuals, documentation, translations.
 * Kept out of later installs too, by the same dpkg configuration as the official image.
 */
const slimExcludes = [
  "/usr/share/doc/*",
  "/usr/share/groff/*",
  "/usr/share/info/*",
  "/usr/share/linda/*",
  "/usr/share/lintian/overrides/*",
  "/usr/share/locale/*",
  "/usr/share/man/*",
];
const slimIncludes = ["/usr/share/doc/*/copyright", "/usr/share/locale/locale.alias"];

async function run(command: string[], log: (line: string) => void, options: { quiet?: boolean } = {}) {
  log(`$ ${command.join(" ")}`);
  const child = Bun.spawn(command, {
    stdout: options.quiet ? "ignore" : "inherit",
    stderr: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  const code = await child.exited;
  if (code !== 0) throw new Error(`${command.slice(0, 2).join(" ")} failed with exit code ${code} (see above)`);
}

/** Whether podman has the image, without pulling it. */
export async function hasImage(name: string): Promise<boolean> {
  const child = Bun.spawn(["podman", "image", "exists", name], { stdout: "ignore", stderr: "ignore" });
  return (await child.exited) === 0;
}

/** Makes the slim Debian tarball at `tarball`: debootstrap into a scratch folder, slimmed, then packed. */
async function makeBaseTarball(tarball: string, log: (line: string) => void): Promise<void> {
  const scratch = mkdtempSync(join("/var/tmp", "svc-hub-debian-"));
  const root = join(scratch, "root");
  try {
    const mirror = debianMirrorOf(aptSources());
    await run(["debootstrap", "--variant=minbase", "bookworm", root, mirror], log, { quiet: true });
    writeFileSync(
      join(root, "etc/dpkg/dpkg.cfg.d/docker"),
      [...slimExcludes.map((path) => `path-exclude ${path}`), ...slimIncludes.map((path) => `path-include ${path}`)]
        .map((line) => `${line}\n`)
        .join(""),
    );
    // What a registry's image leaves out: the downloaded packages, the package lists, the backups of dpkg's and
    // debconf's databases, and the slim excludes.
    await run(
      [
        "sh",
        "-c",
        `cd "$1" && rm -rf var/cache/apt/archives/*.deb var/lib/apt/lists/* var/log/*.log var/log/apt/* tmp/* \
          && rm -f var/cache/debconf/*-old var/lib/dpkg/*-old \
          && find usr/share/doc -mindepth 1 ! -name copyright ! -type d -delete \
          && find usr/share/doc -mindepth 1 -type d -empty -delete \
          && rm -rf usr/share/groff/* usr/share/info/* usr/share/linda/* usr/share/lintian/overrides/* usr/share/man/* \
          && find usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +`,
        "slimify",
        root,
      ],
      log,
    );
    mkdirSync(dirname(tarball), { recursive: true });
    const partial = `${tarball}.partial`;
    await run(["tar", "--numeric-owner", "-C", root, "-cf", partial, "."], log);
    renameSync(partial, tarball);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Resolves once podman can build svc-hub's image here: the packages, containers.conf and the base image. Rejects
 * with PackageUnavailableError when podman cannot be installed on this machine, with an Error when a step failed.
 */
export async function ensurePodman(
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  host: PackageHost = thisHost,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<void> {
  for (const wanted of packages) await ensureDebianPackage({ ...wanted, manualSteps }, log, host);
  // Rootless podman reads the user's own containers.conf: only root's is ours to set.
  if (host.uid === 0) {
    const before = existsSync(containersConfPath) ? readFileSync(containersConfPath, "utf8") : "";
    const after = withContainersSettings(before);
    if (after !== before) {
      log(`setting ${containersConfPath}: no default ulimits, cgroupfs, runc`);
      mkdirSync(dirname(containersConfPath), { recursive: true });
      writeFileSync(containersConfPath, after);
    }
  }
  if (await hasImage(baseImage)) return;
  const tarball = join(cacheDirOf(env), "debian-bookworm-slim.tar");
  if (!existsSync(tarball)) {
    // debootstrap makes device files and chroots: root only.
    if (host.uid !== 0)
      throw new PackageUnavailableError(
        `podman has no ${baseImage} and making it needs root (this process runs as uid ${host.uid}): run \`bun tools/ensure-podman.ts\` as root once, or pull it`,
      );
    log(`${baseImage} is missing: making it from Debian's packages (a few minutes; kept in ${tarball})`);
    await makeBaseTarball(tarball, log);
  }
  await run(["podman", "import", "--change", 'CMD ["bash"]', tarball, baseImage], log, { quiet: true });
}

if (import.meta.main) {
  try {
    await ensurePodman();
    process.stdout.write(`podman: ready, with ${baseImage}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof PackageUnavailableError ? packageUnavailableExitCode : 1);
  }
}
