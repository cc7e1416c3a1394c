// Part of `npm run build`: puts Scalar's standalone bundle, the renderer of the console's API reference page, into
// dist/console/ with its compressed forms, which the server sends as they are:
//
//   dist/console/scalar.js      the bundle (about 4.8 MB)
//   dist/console/scalar.js.br   brotli, for browsers that accept br
//   dist/console/scalar.js.gz   gzip, for the others
//
// Only that one file of @scalar/api-reference is used, so svc-hub does not install the package and its
// dependency tree (about 40 packages, which need Node 22 and warn on Node 20): the script asks npm for the
// package's tarball alone (`npm pack`, from npm's cache when it is there), checks it against the integrity pinned
// below and takes the file out of it. Without the registry or the cache it says so and the build goes on: the
// page then says the renderer is missing, and /openapi.json is still served.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** The version of Scalar served, and its tarball's integrity as the registry gives it (npm view … dist.integrity). */
export const apiReferencePackage = {
  spec: "@scalar/api-reference@1.76.0",
  integrity: "sha512-pjqwnzmA9YK3ZX+IZSICMsywm4qI6HLSngR2py9H6TvFApHHuJjkTAd+gFJfnqJDzJuro8k7ji6JCtJ2U+Byng==",
  file: "package/dist/browser/standalone.js",
};

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const target = join(root, "dist", "console", "scalar.js");

/** npm itself: the one running this build when there is one, else the npm on the PATH. */
function npm(args, cwd) {
  const execPath = process.env.npm_execpath;
  const [command, prefix] = execPath?.endsWith(".js") ? [process.execPath, [execPath]] : ["npm", []];
  return execFileSync(command, [...prefix, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function fetchBundle() {
  const folder = mkdtempSync(join(tmpdir(), "svc-hub-api-reference-"));
  try {
    const [packed] = JSON.parse(
      npm(["pack", apiReferencePackage.spec, "--json", "--ignore-scripts", "--pack-destination", folder], folder),
    );
    const tarball = join(folder, packed.filename);
    const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
    if (integrity !== apiReferencePackage.integrity)
      throw new Error(`${apiReferencePackage.spec}: integrity ${integrity}, expected ${apiReferencePackage.integrity}`);
    execFileSync("tar", ["-xzf", tarball, "-C", folder, apiReferencePackage.file]);
    return readFileSync(join(folder, apiReferencePackage.file));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

let bundle;
try {
  bundle = fetchBundle();
} catch (error) {
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  process.stdout.write(
    `build: could not fetch ${apiReferencePackage.spec} (${reason}); the API reference page will say so\n`,
  );
}
if (bundle) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, bundle);
  // Quality 9: within 10 % of brotli's best for this file, in under a second instead of ten.
  writeFileSync(
    `${target}.br`,
    brotliCompressSync(bundle, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 9,
        [constants.BROTLI_PARAM_LGWIN]: 24,
        [constants.BROTLI_PARAM_SIZE_HINT]: bundle.length,
      },
    }),
  );
  writeFileSync(`${target}.gz`, gzipSync(bundle, { level: 9 }));
}
