import { writeSync } from "node:fs";

/** How the text reaches the descriptor and, once it cannot, the stream: Node's, unless a test gives its own. */
export interface DescriptorWriters {
  readonly writeSync: (fd: number, bytes: Uint8Array, offset: number) => number;
  readonly stream: () => { write(chunk: Uint8Array | string): unknown };
}

const nodeWriters = (fd: 1 | 2): DescriptorWriters => ({
  writeSync: (descriptor, bytes, offset) => writeSync(descriptor, bytes, offset),
  stream: () => (fd === 1 ? process.stdout : process.stderr),
});

/** A writer of stdout or stderr: straight to the descriptor until `toStream()`, then through Node's stream. */
export interface DescriptorOutput {
  write(text: string): void;
  /** From now on every text goes through the stream (made at the next write, not now). */
  toStream(): void;
}

/**
 * Text written to stdout (1) or stderr (2) straight to the descriptor, without Node's stream objects, for a
 * process's start: the first use of `process.stdout` or `process.stderr` (even reading `isTTY`) loads node:stream
 * and its kin, 10–25 ms of a start that needs none of them otherwise (bench/FINDINGS.md, "Start"). Each write is
 * whole and blocking: a reader that does not read holds the writer, which is why the owner turns to the stream
 * (`toStream`), which queues, once it serves. A descriptor its owner made non-blocking answers EAGAIN when full,
 * and one whose reader is gone EPIPE: from then on the text goes through the stream too (which reports the error
 * as it always did), so that nothing is lost or reordered.
 */
export function descriptorOutput(fd: 1 | 2, writers: DescriptorWriters = nodeWriters(fd)): DescriptorOutput {
  let streamed = false;
  return {
    write(text) {
      if (streamed) {
        writers.stream().write(text);
        return;
      }
      const bytes = Buffer.from(text, "utf8");
      let written = 0;
      try {
        while (written < bytes.byteLength) written += writers.writeSync(fd, bytes, written);
      } catch {
        streamed = true;
        writers.stream().write(bytes.subarray(written));
      }
    },
    toStream() {
      streamed = true;
    },
  };
}
