/**
 * The members of a revision bundle and how they are named (REV-06, DEC-REV-02). Every name is checked
 * against the naming scheme at publish time, so a bundle never holds a path, `..` or any other name that
 * could land outside the folder whoever unpacks it chose (zip-slip).
 */
import { err, ok, type Result } from "../result.ts";

/** DEC-REV-02: the default file prefix *(config)*. */
export const defaultRevisionFilePrefix = "utag";

/** REV-07: made by the service from the details, never sent by a publisher. */
export const manifestFileName = "manifest.json";
/** REV-05: the checksums name the bundle itself with this name. */
export const bundleFileName = "bundle.zip";
export const mobileFileName = "mobile.html";

/** loader `<prefix>.js`, vendor `<prefix>.<n>.js`, sync `<prefix>.sync.js`, mobile `mobile.html`. */
export type BundleMemberKind = "loader" | "vendor" | "sync" | "mobile";

export interface BundleMemberName {
  readonly name: string;
  readonly kind: BundleMemberKind;
  /** The `<n>` of a vendor tag file. */
  readonly number?: number;
}

/** A prefix is a plain name (it becomes part of file names): letters, digits, `_`, `-` and `~`. */
const prefixShape = /^[A-Za-z0-9_~-]{1,64}$/;

/** Whether `prefix` can be the file prefix of bundle members. */
export function isValidFilePrefix(prefix: string): boolean {
  return prefixShape.test(prefix);
}

/** Vendor tag numbers: a positive integer without leading zeros, at most nine digits. */
const vendorNumber = "[1-9][0-9]{0,8}";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The naming scheme, in words, for messages. */
export function namingScheme(prefix: string): string {
  return `${prefix}.js, ${prefix}.<n>.js, ${prefix}.sync.js or ${mobileFileName}`;
}

const maxNameLength = 100;

/**
 * DEC-REV-02, REV-06: what a file name is in a bundle, or why it cannot be one. Names with a folder part
 * (`/`, `\`), `..`, control characters, the names the service makes itself, and anything outside the
 * scheme are refused.
 */
export function classifyMemberName(name: string, prefix: string): Result<BundleMemberName, string> {
  if (name.length === 0) return err("must not be empty");
  if (name.length > maxNameLength) return err(`must be at most ${maxNameLength} characters`);
  if (/[/\\]/.test(name)) return err("must be a plain file name, without a folder (no / or \\)");
  if (name.includes("..")) return err('must not contain ".."');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: REV-06 refuses names holding control characters
  if (/[\u0000-\u001f\u007f]/.test(name)) return err("must not contain control characters");
  if (name === manifestFileName || name === bundleFileName) return err("is made by the service and must not be sent");
  if (name === mobileFileName) return ok({ name, kind: "mobile" });
  const p = escapeRegExp(prefix);
  if (name === `${prefix}.js`) return ok({ name, kind: "loader" });
  if (name === `${prefix}.sync.js`) return ok({ name, kind: "sync" });
  const vendor = new RegExp(`^${p}\\.(${vendorNumber})\\.js$`).exec(name);
  if (vendor) return ok({ name, kind: "vendor", number: Number(vendor[1]) });
  return err(`must be one of ${namingScheme(prefix)}`);
}

const kindOrder: Readonly<Record<BundleMemberKind, number>> = { loader: 0, vendor: 1, sync: 2, mobile: 3 };

/**
 * DEC-REV-02: the fixed order of members in the bundle and in the checksums: the main loader, vendor tag
 * files by number, the sync loader, mobile.html (manifest.json follows them in the zip).
 */
export function compareMembers(a: BundleMemberName, b: BundleMemberName): number {
  const byKind = kindOrder[a.kind] - kindOrder[b.kind];
  if (byKind !== 0) return byKind;
  return (a.number ?? 0) - (b.number ?? 0);
}
