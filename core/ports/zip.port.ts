/** One member of a zip: its name and bytes. */
export interface ZipEntry {
  /** A plain member name: callers check names before they get here (see core/revisions/bundle-members.rules.ts). */
  readonly name: string;
  readonly bytes: Uint8Array;
}

/**
 * DEC-REV-02: writes a revision's bundle, a zip (node:zlib in the adapters). Its bytes must depend on nothing
 * but the entries and their order (no dates, modes or comments that vary), so that the same files published
 * at the same minute give the same bundle, and the same checksum, on any machine and at any time.
 */
export interface BundleZipper {
  /** The zip of `entries`, in this order, in memory. */
  zip(entries: readonly ZipEntry[]): Promise<Uint8Array>;
}
