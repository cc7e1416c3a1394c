import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { descriptorOutput } from "./descriptor-output.ts";

const modulePath = join(import.meta.dir, "descriptor-output.ts");

/** Runs `body` in a Bun of its own, with `out` and `err` writing to its stdout and stderr. */
async function run(body: string): Promise<{ stdout: string; stderr: string; code: number }> {
  const script = `import { descriptorOutput } from ${JSON.stringify(modulePath)};
const out = descriptorOutput(1).write;
const err = descriptorOutput(2).write;
${body}`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { stdout, stderr, code };
}

describe("descriptorOutput", () => {
  test("writes each text whole and in order, stdout and stderr apart, multi-byte characters included", async () => {
    const { stdout, stderr, code } = await run(
      'for (let index = 0; index < 200; index++) out("line " + index + " é✓\\n");\nerr("to stderr\\n");',
    );
    expect(code).toBe(0);
    expect(stdout).toBe(Array.from({ length: 200 }, (_, index) => `line ${index} é✓\n`).join(""));
    expect(stderr).toBe("to stderr\n");
  });

  test("a text larger than a pipe holds arrives whole while the reader reads", async () => {
    const { stdout, code } = await run('out("x".repeat(1024 * 1024) + "\\n");');
    expect(code).toBe(0);
    expect(stdout).toBe(`${"x".repeat(1024 * 1024)}\n`);
  });

  test("once the descriptor refuses (EAGAIN), the rest and every later text go through the stream, in order", () => {
    const direct: string[] = [];
    const streamed: string[] = [];
    let calls = 0;
    const { write } = descriptorOutput(1, {
      writeSync(_fd, bytes, offset) {
        calls++;
        // The first text whole, then 3 bytes of the second, then a full pipe.
        if (calls === 3) throw Object.assign(new Error("EAGAIN: resource temporarily unavailable"), { code: "EAGAIN" });
        const taken = calls === 2 ? 3 : bytes.byteLength - offset;
        direct.push(Buffer.from(bytes.subarray(offset, offset + taken)).toString());
        return taken;
      },
      stream: () => ({ write: (chunk) => void streamed.push(Buffer.from(chunk).toString()) }),
    });
    write("first\n");
    write("second\n");
    write("third\n");
    expect(direct).toEqual(["first\n", "sec"]);
    expect(streamed).toEqual(["ond\n", "third\n"]);
    expect(calls).toBe(3);
  });

  test("after toStream every text goes through the stream, none to the descriptor", () => {
    const direct: string[] = [];
    const streamed: string[] = [];
    const output = descriptorOutput(2, {
      writeSync(_fd, bytes, offset) {
        direct.push(Buffer.from(bytes.subarray(offset)).toString());
        return bytes.byteLength - offset;
      },
      stream: () => ({ write: (chunk) => void streamed.push(Buffer.from(chunk).toString()) }),
    });
    output.write("starting\n");
    output.toStream();
    output.write("serving\n");
    expect(direct).toEqual(["starting\n"]);
    expect(streamed).toEqual(["serving\n"]);
  });
});
