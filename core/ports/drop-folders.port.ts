import type { ByteSource } from "./received-files.port.ts";

/** How a dropped file's receipt ended: stored (the drop folder lets it go), or refused or not stored, and why. */
export type DropReceipt = { readonly stored: true } | { readonly stored: false; readonly reason: string };

/** Receives a dropped file's bytes as the file `name` of the profile; throws when the store fails. */
export type ReceiveDropped = (
  account: string,
  profile: string,
  name: string,
  bytes: ByteSource,
) => Promise<DropReceipt>;

/**
 * DEC-OPS-04: the drop folders, one a profile (`inbox/{account}/{profile}/` under svc-hub's data directory),
 * where an operator puts files to import. The folders decide when a file is complete (it has settled), claim
 * it so that of the nodes sharing a folder one takes it, and keep a refused file where the operator finds it;
 * what they remember of the files seen is their own.
 */
export interface DropFolderInbox {
  /** Makes the drop folder of a profile, so an operator finds where to put files. */
  prepare(account: string, profile: string): Promise<void>;
  /**
   * Takes the settled files of every drop folder and hands each to `receive`: a file stored leaves its folder,
   * one refused or not stored is kept aside for the operator. Answers how many files it took.
   */
  pickUp(receive: ReceiveDropped): Promise<number>;
  /** How long until the soonest file seen but not yet taken will have settled (0: it has), or null when none waits. */
  untilSettled(): number | null;
  /**
   * svc-hub's own admin API (POST /admin/reset): removes every file waiting in the drop folders, with what was
   * kept aside and any claim, leaving the folders themselves. Answers how many files went.
   */
  eraseAll(): Promise<number>;
  /** svc-hub's own admin API (POST /admin/reset): forgets the dropped files seen, whose folders were emptied. */
  forget(): void;
}
