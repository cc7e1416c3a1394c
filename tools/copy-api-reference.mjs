// Part of `npm run build`: copies Scalar's standalone bundle (a development dependency) into dist/console/, so
// that a packed svc-hub serves its API reference page without installing Scalar and its dependencies.
// Without Scalar installed (npm install --omit=dev) it says so and copies nothing: the page then says the
// renderer is missing, and /openapi.json is still served.
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "node_modules", "@scalar", "api-reference", "dist", "browser", "standalone.js");
const target = join(root, "dist", "console", "scalar.js");
if (existsSync(source)) {
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(source, target);
} else {
  process.stdout.write("build: @scalar/api-reference is not installed; the API reference page will say so\n");
}
