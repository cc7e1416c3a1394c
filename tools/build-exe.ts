/**
 * `npm run build:exe`: svc-hub as one executable file, dist/exe/svc-hub-<platform>, with its SHA-256 beside it
 * (svc-hub-<platform>.sha256, in sha256sum's format). It holds the CLI with every command, the server, its
 * threads, libSQL's native module, the migrations, the demo configuration, the console and the API reference,
 * and runs from any folder without node_modules. For linux-x64 it also writes the image's executable,
 * dist/exe/image/svc-hub-linux-x64, which the Dockerfile copies: the same, without bytecode (`imageExePath`).
 *
 *   bun tools/build-exe.ts                          # linux-x64
 *   bun tools/build-exe.ts --target all             # linux-x64, linux-arm64 and darwin-arm64
 *   bun tools/build-exe.ts --target linux-arm64,darwin-arm64
 *
 * Another platform's Bun runtime and libSQL module are npm packages that npm will not install here (their `cpu`
 * and `os` are not this machine's): `npm pack` fetches them, at the versions node_modules holds, into
 * node_modules/.cache/svc-hub-exe, once.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { BunPlugin } from "bun";
import { bundleConsoleScripts } from "../adapters/console/console-assets.ts";

const root = resolve(import.meta.dir, "..");
export const exeDir = join(root, "dist", "exe");
const cacheDir = join(root, "node_modules", ".cache", "svc-hub-exe");

export interface ExePlatform {
  /** The name in the file's name: svc-hub-<name>. */
  readonly name: string;
  readonly bunTarget: Bun.Build.CompileTarget;
  /** The npm package of Bun's runtime for that platform, and its binary inside it; null: the Bun running this. */
  readonly runtime: { readonly pkg: string; readonly binary: string } | null;
  /** libSQL's native module for that platform (libsql's `neon.targets`). */
  readonly libsql: string;
}

export const platforms: readonly ExePlatform[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", runtime: null, libsql: "@libsql/linux-x64-gnu" },
  {
    name: "linux-arm64",
    bunTarget: "bun-linux-arm64",
    runtime: { pkg: "@oven/bun-linux-aarch64", binary: "bin/bun" },
    libsql: "@libsql/linux-arm64-gnu",
  },
  {
    name: "darwin-arm64",
    bunTarget: "bun-darwin-arm64",
    runtime: { pkg: "@oven/bun-darwin-aarch64", binary: "bin/bun" },
    libsql: "@libsql/darwin-arm64",
  },
];

/** The executable of a platform, under dist/exe/. */
export function exePath(platform: string): string {
  return join(exeDir, `svc-hub-${platform}`);
}

/** The platform of the OCI image (the Dockerfile's base is Debian for linux-x64). */
export const imagePlatform = "linux-x64";

/**
 * The executable the Dockerfile copies: the image platform's, built without bytecode. The bytecode (JavaScriptCore's
 * compiled form of the bundle, which spares a start the parsing) makes a start about a third faster and the file
 * 9 MB larger, which the image's 200 MB has no room for (bench/FINDINGS.md, "Start").
 */
export const imageExePath = join(exeDir, "image", `svc-hub-${imagePlatform}`);

/**
 * A copy of a platform's executable alone in a new temporary folder, outside any checkout (no node_modules up
 * the tree), as a user who downloaded it has it. The caller removes `dir`.
 */
export function copyToEmptyFolder(platform: string): { readonly dir: string; readonly path: string } {
  const dir = mkdtempSync(join(tmpdir(), "svc-hub-exe-"));
  const path = join(dir, basename(exePath(platform)));
  copyFileSync(exePath(platform), path);
  chmodSync(path, 0o755);
  return { dir, path };
}

function versionOf(pkg: string): string {
  return JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")).version;
}

/**
 * The folder of `pkg@version`: node_modules' own when it is installed at that version (this machine's platform),
 * else the package fetched with `npm pack` into the cache and unpacked there.
 */
async function packageFolder(pkg: string, version: string): Promise<string> {
  const installed = join(root, "node_modules", pkg);
  if (existsSync(join(installed, "package.json")) && versionOf(pkg) === version) return installed;
  const folder = join(cacheDir, `${pkg.replace("/", "+")}@${version}`);
  if (existsSync(join(folder, "package", "package.json"))) return join(folder, "package");
  // Fetched into a folder of its own, then moved into place whole: two builds at once never see half a package.
  mkdirSync(cacheDir, { recursive: true });
  const fetching = mkdtempSync(join(cacheDir, "fetching-"));
  try {
    process.stderr.write(`build-exe: fetching ${pkg}@${version} (npm pack)\n`);
    const pack = Bun.spawnSync(["npm", "pack", `${pkg}@${version}`, "--pack-destination", fetching, "--silent"], {
      cwd: fetching,
      stdout: "pipe",
      stderr: "pipe",
    });
    const tarball = readdirSync(fetching).find((name) => name.endsWith(".tgz"));
    if (pack.exitCode !== 0 || !tarball)
      throw new Error(`npm pack ${pkg}@${version} failed: ${pack.stderr.toString().trim() || pack.stdout.toString()}`);
    const untar = Bun.spawnSync(["tar", "-xzf", tarball], { cwd: fetching, stderr: "pipe" });
    if (untar.exitCode !== 0) throw new Error(`unpacking ${tarball} failed: ${untar.stderr.toString().trim()}`);
    rmSync(join(fetching, tarball));
    if (!existsSync(folder)) renameSync(fetching, folder);
  } finally {
    rmSync(fetching, { recursive: true, force: true });
  }
  return join(folder, "package");
}

/**
 * libsql loads its native module by a name it computes at run time (`require(\`@libsql/${target}\`)`), which a
 * bundler cannot follow: this names the target platform's `.node` file instead, which Bun then embeds. The
 * computing goes with it: it asked for Node's diagnostic report and read /usr/bin/ldd to tell glibc from musl,
 * about 10 ms of every start, for a platform the build already chose.
 */
function libsqlNativeModule(nativeFile: string): BunPlugin {
  return {
    name: "libsql-native-module",
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/]libsql[\\/]index\.js$/ }, async ({ path }) => {
        const source = await Bun.file(path).text();
        // libsql's `function requireNative() { ... return require(\`@libsql/${target}\`); }`, whole.
        const computed = /function requireNative\(\) \{[\s\S]*?return require\(`@libsql\/\$\{target\}`\);\n\}/;
        if (!computed.test(source))
          throw new Error(`${path} no longer loads its native module as ${computed}: update tools/build-exe.ts`);
        const named = `function requireNative() {\n  return require(${JSON.stringify(nativeFile)});\n}`;
        return { contents: source.replace(computed, named), loader: "js" };
      });
    },
  };
}

/**
 * The API reference's files, as the package carries them (dist/console/, which tools/fetch-api-reference.mjs
 * fills); the executable serves them from the same path.
 */
function stageApiReference(stage: string): void {
  const built = Bun.spawnSync(["node", join(root, "tools", "fetch-api-reference.mjs")], {
    cwd: root,
    stdout: "inherit",
  });
  if (built.exitCode !== 0) throw new Error("tools/fetch-api-reference.mjs failed");
  const from = join(root, "dist", "console");
  if (!existsSync(join(from, "rapidoc.js.br")))
    throw new Error("dist/console/ holds no API reference: could tools/fetch-api-reference.mjs reach npm?");
  cpSync(from, join(stage, "dist", "console"), { recursive: true });
}

/**
 * The files the running program reads from its package (adapters/runtime/packaged-files.ts), copied under their
 * paths from the package root into `stage`, whose top folders the executable embeds as they are.
 */
async function stageFiles(stage: string): Promise<string[]> {
  rmSync(stage, { recursive: true, force: true });
  const copy = (path: string) => cpSync(join(root, path), join(stage, path), { recursive: true });
  // The SQL files and meta/_journal.json are what drizzle's migrator reads; its snapshots (meta/*_snapshot.json,
  // drizzle-kit's record for generating the next migration) are left out.
  const migrations = (path: string) =>
    cpSync(join(root, path), join(stage, path), {
      recursive: true,
      filter: (source) => !source.endsWith("_snapshot.json"),
    });
  migrations("adapters/store-libsql/migrations");
  migrations("adapters/store-postgres/migrations");
  copy("adapters/config/demo.config.json");
  copy("adapters/config/demo.config.yaml");
  for (const file of ["index.html", "api-reference.html", "console.css"]) copy(`adapters/console/ui/${file}`);
  // The console's scripts, bundled now: the executable holds no sources to bundle them from.
  for (const [name, bytes] of await bundleConsoleScripts())
    writeFileSync(join(stage, "adapters", "console", "ui", name), bytes);
  // `svc-hub conformance --impl svc-hub`: the known failures beside the scenarios.
  copy("conformance/implementations/svc-hub/expectations.json");
  stageApiReference(stage);
  return readdirSync(stage).map((name) => join(stage, name));
}

/**
 * Builds the executable of `platform` and its checksum file; returns the executable's path. With `bytecode` (the
 * executables of dist/exe/) the bundle is embedded with JavaScriptCore's bytecode of it beside it, so that a start
 * runs it instead of parsing it; without (the image's), only the bundle.
 */
export async function buildExe(
  platform: ExePlatform,
  stage: string[],
  { bytecode, outfile }: { readonly bytecode: boolean; readonly outfile: string },
): Promise<string> {
  const libsql = await packageFolder(platform.libsql, versionOf("libsql"));
  const runtime = platform.runtime
    ? join(await packageFolder(platform.runtime.pkg, versionOf("bun")), platform.runtime.binary)
    : process.execPath;
  mkdirSync(dirname(outfile), { recursive: true });
  const built = await Bun.build({
    entrypoints: [
      join(root, "adapters", "cli", "exe-main.ts"),
      // Threads start from their own entry points.
      join(root, "adapters", "threads", "background-entry.ts"),
      join(root, "adapters", "threads", "hashing-entry.ts"),
      join(root, "adapters", "threads", "lookup-entry.ts"),
    ],
    // Each entry point is embedded under its path from here, which adapters/runtime/packaged-files.ts names.
    root,
    target: "bun",
    format: "esm",
    minify: true,
    // What an import() loads is a file of its own, parsed when imported: a start does not parse the code of the
    // commands, the PostgreSQL driver or the zip writer, and the threads share the modules they have in common.
    splitting: true,
    bytecode,
    sourcemap: "none",
    plugins: [libsqlNativeModule(join(libsql, "index.node"))],
    throw: false,
    compile: {
      target: platform.bunTarget,
      executablePath: runtime,
      outfile,
      assets: stage,
      // As `npx svc-hub` runs Bun: the working directory's .env and bunfig.toml belong to the user's project.
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
  });
  if (!built.success) throw new AggregateError(built.logs, `the ${platform.name} executable did not build`);
  chmodSync(outfile, 0o755);
  const digest = createHash("sha256").update(readFileSync(outfile)).digest("hex");
  writeFileSync(`${outfile}.sha256`, `${digest}  ${basename(outfile)}\n`);
  return outfile;
}

/** The platforms of `--target`: one name, a comma-separated list, or `all`. */
export function platformsOf(target: string): ExePlatform[] {
  if (target === "all") return [...platforms];
  return target.split(",").map((name) => {
    const found = platforms.find((platform) => platform.name === name.trim());
    if (!found)
      throw new Error(`--target ${name}: not one of ${platforms.map((platform) => platform.name).join(", ")}, all`);
    return found;
  });
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { target: { type: "string", default: "linux-x64" } } });
  try {
    const chosen = platformsOf(values.target as string);
    mkdirSync(exeDir, { recursive: true });
    // Staged beside the output and removed after: dist/exe/ then holds only the executables and their checksums.
    const stageDir = join(exeDir, ".stage");
    try {
      const stage = await stageFiles(stageDir);
      const builds = chosen.flatMap((platform) => [
        { platform, bytecode: true, outfile: exePath(platform.name) },
        ...(platform.name === imagePlatform ? [{ platform, bytecode: false, outfile: imageExePath }] : []),
      ]);
      for (const { platform, bytecode, outfile } of builds) {
        const started = performance.now();
        const path = await buildExe(platform, stage, { bytecode, outfile });
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const what = bytecode ? platform.bunTarget : `${platform.bunTarget}, no bytecode: the image's`;
        process.stdout.write(`${path} (${what}) and ${basename(path)}.sha256, in ${seconds} s\n`);
      }
    } finally {
      rmSync(stageDir, { recursive: true, force: true });
    }
  } catch (error) {
    process.stderr.write(`build-exe: ${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof AggregateError) for (const log of error.errors) process.stderr.write(`  ${String(log)}\n`);
    process.exit(1);
  }
}
