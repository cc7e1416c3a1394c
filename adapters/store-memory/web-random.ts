import type { IdSource } from "../../core/ports/index.ts";

const bytesOf = (count: number) => globalThis.crypto.getRandomValues(new Uint8Array(count));

/**
 * Randomness from the Web Crypto API, which Bun, Deno, Node and browsers all have: the in-memory store's
 * default, so that it runs on any of them without an adapter of the host's own.
 */
export const webRandomIds: IdSource = {
  randomHex: (bytes) => Array.from(bytesOf(bytes), (byte) => byte.toString(16).padStart(2, "0")).join(""),
  randomToken: (bytes) =>
    btoa(String.fromCharCode(...bytesOf(bytes)))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, ""),
  randomUnit: () => (globalThis.crypto.getRandomValues(new Uint32Array(1))[0] ?? 0) / 2 ** 32,
};
