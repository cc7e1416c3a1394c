// Part of `npm run build`: puts RapiDoc's bundle, the renderer of the console's API reference page, into
// dist/console/ in the two compressed forms the server sends as they are (the npm package carries them):
//
//   dist/console/rapidoc.js.br             brotli (about 190 KB), for browsers that accept br
//   dist/console/rapidoc.js.gz             gzip (about 220 KB), for the others; decompressed for a client that
//                                          accepts neither
//   dist/console/rapidoc-min.js.LICENSE.txt RapiDoc's licence and those of what its bundle holds
//
// Only that one file of the rapidoc package is used (dist/rapidoc-min.js, about 860 KB), so svc-hub does not
// install the package and its dependency tree: the script asks npm for the package's tarball alone (`npm pack`,
// from npm's cache when it is there), checks it against the integrity pinned below and takes the files out of it.
// Without the registry or the cache it says so and the build goes on: the page then says the renderer is missing,
// and /openapi.json is still served.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** The version of RapiDoc served, and its tarball's integrity as the registry gives it (npm view … dist.integrity). */
export const apiReferencePackage = {
  spec: "rapidoc@9.3.8",
  integrity: "sha512-eCYEbr1Xr8OJZvVCw8SXl9zBCRoLJbhNGuG5IZTHq/RWAOq/O4MafUCuFEyZHsrhLrlUcGZMa64pyhpib8fQKQ==",
  bundle: "package/dist/rapidoc-min.js",
  licences: ["package/LICENSE.txt", "package/dist/rapidoc-min.js.LICENSE.txt"],
};

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const folder = join(root, "dist", "console");

/** npm itself: the one running this build when there is one, else the npm on the PATH. */
function npm(args, cwd) {
  const execPath = process.env.npm_execpath;
  const [command, prefix] = execPath?.endsWith(".js") ? [process.execPath, [execPath]] : ["npm", []];
  return execFileSync(command, [...prefix, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** The bundle and the licence texts, out of the package's tarball. */
function fetchPackageFiles() {
  const scratch = mkdtempSync(join(tmpdir(), "svc-hub-api-reference-"));
  try {
    const [packed] = JSON.parse(
      npm(["pack", apiReferencePackage.spec, "--json", "--ignore-scripts", "--pack-destination", scratch], scratch),
    );
    const tarball = join(scratch, packed.filename);
    const integrity = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
    if (integrity !== apiReferencePackage.integrity)
      throw new Error(`${apiReferencePackage.spec}: integrity ${integrity}, expected ${apiReferencePackage.integrity}`);
    execFileSync("tar", ["-xzf", tarball, "-C", scratch, apiReferencePackage.bundle, ...apiReferencePackage.licences]);
    return {
      bundle: readFileSync(join(scratch, apiReferencePackage.bundle)),
      licences: apiReferencePackage.licences.map((path) => readFileSync(join(scratch, path), "utf8")).join("\n"),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

let files;
try {
  files = fetchPackageFiles();
} catch (error) {
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  process.stdout.write(
    `build: could not fetch ${apiReferencePackage.spec} (${reason}); the API reference page will say so\n`,
  );
}
if (files) {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, "rapidoc.js.br"),
    brotliCompressSync(files.bundle, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_LGWIN]: 24,
        [constants.BROTLI_PARAM_SIZE_HINT]: files.bundle.length,
      },
    }),
  );
  writeFileSync(join(folder, "rapidoc.js.gz"), gzipSync(files.bundle, { level: 9 }));
  writeFileSync(join(folder, "rapidoc-min.js.LICENSE.txt"), files.licences);
}
