/**
 * `npm run compatibility`: writes COMPATIBILITY.md, svc-hub's compatibility matrix (each clause and decision of
 * the interface, the scenarios that check it and how they fared), from a run of the conformance suite against a
 * real svc-hub server. Its own command, so that `npm test` leaves the working tree as it found it; `npm test`
 * writes its matrix into test-output/ and fails when the committed one differs (run this, then commit it).
 *
 *   npm run compatibility              # writes COMPATIBILITY.md
 *   npm run compatibility -- --out f   # elsewhere
 */
import { resolve } from "node:path";
import { runSuiteAgainstServer } from "./conformance-server.ts";

const root = resolve(import.meta.dir, "..");
const outAt = process.argv.indexOf("--out");
const out = outAt >= 0 ? resolve(process.argv[outAt + 1] as string) : resolve(root, "COMPATIBILITY.md");

const run = await runSuiteAgainstServer(root, ["--compatibility", out], async (command) => {
  const child = Bun.spawn(command, { cwd: root, stdout: "inherit", stderr: "inherit" });
  return { code: await child.exited, output: "" };
});
if (run.code !== 0) {
  process.stderr.write(`the suite failed (exit ${run.code}): ${out} lists the failures\n`);
  process.exit(1);
}
process.stdout.write(`wrote ${out}\n`);
