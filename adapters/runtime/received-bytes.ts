import { createHash, type Hash } from "node:crypto";
import type { ReceivedBytes } from "../../core/ports/index.ts";

/** MD5 of no bytes: the checksum of a file of which nothing was received yet (DEC-FIL-05). */
export const md5OfNothing = createHash("md5").digest("hex");

const newline = 0x0a;

/**
 * DEC-FIL-05: the size, MD5 and lines of a file's bytes, counted as they come, whichever storage keeps them
 * (the data directory, the PostgreSQL database), so both report a file alike.
 */
export class ReceivedBytesCount {
  private readonly md5: Hash = createHash("md5");
  private size = 0;
  private newlines = 0;
  private lastByte = -1;

  /** Counts the next bytes of the file. */
  add(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.md5.update(buffer);
    for (let at = buffer.indexOf(newline); at !== -1; at = buffer.indexOf(newline, at + 1)) this.newlines += 1;
    this.size += buffer.byteLength;
    this.lastByte = buffer[buffer.byteLength - 1] as number;
  }

  /** What was counted so far: a last line without its newline counts. Once only: the MD5 is then final. */
  received(): ReceivedBytes {
    const unfinishedLine = this.size > 0 && this.lastByte !== newline ? 1 : 0;
    return { size: this.size, checksum: this.md5.digest("hex"), lineCount: this.newlines + unfinishedLine };
  }
}
