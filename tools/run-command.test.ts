import { describe, expect, it } from "bun:test";
import { tmpdir } from "node:os";
import { runCommand } from "./run-command.ts";

describe("runCommand", () => {
  it("gives a command's exit code, standard output and standard error, with its input, folder and environment", async () => {
    const script =
      "const input = await Bun.stdin.text(); console.log(input.toUpperCase(), process.cwd(), process.env.RUN_COMMAND_TEST); console.error('to stderr'); process.exit(3);";
    const run = await runCommand([process.execPath, "-e", script], {
      stdin: "typed",
      cwd: tmpdir(),
      env: { ...process.env, RUN_COMMAND_TEST: "set" },
    });
    expect(run).toEqual({ code: 3, stdout: `TYPED ${tmpdir()} set\n`, stderr: "to stderr\n" });
  });

  it("gives the command no input when none is named", async () => {
    const run = await runCommand([process.execPath, "-e", "console.log(JSON.stringify(await Bun.stdin.text()))"]);
    expect(run).toEqual({ code: 0, stdout: '""\n', stderr: "" });
  });

  it("kills a command still running after killAfterMs, and gives what it wrote before", async () => {
    // 3 s: the start of a Bun, even on a busy machine, before the kill.
    const script = "console.log('started'); await Bun.sleep(60_000); console.log('never');";
    const run = await runCommand([process.execPath, "-e", script], { killAfterMs: 3_000 });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe("started\n");
  });
});
