import { randomBytes } from "node:crypto";
import { createReadStream, type Dirent, statSync } from "node:fs";
import { link, mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { currentState, mayBeReceivedAgain } from "../../core/files/index.ts";
import type { DropFolderInbox, DropReceipt, FileStatusStore, Logger, ReceiveDropped } from "../../core/ports/index.ts";
import { processIsAlive } from "../runtime/lease.ts";
import { directoriesIn, entriesOf, pathExists, removeCounting } from "./folder-entries.ts";
import { md5Of } from "./received-files.ts";

/** A drop folder's claim on a file: `.importing.<pid>.<random>.<the file's name>`. */
const claimPrefix = ".importing.";
const claimPattern = /^\.importing\.(\d+)\.[0-9a-f]{8}\.(.+)$/;
/** How old a claim of a process that is not alive here must be before it is given back (see giveBackAbandoned). */
export const claimGiveBackMs = 10 * 60_000;

/**
 * How long this node must have seen a dropped file unchanged (its size and modification time) before it is
 * taken. Tools such as cp, scp and SFTP servers write under the final name; a file taken while they write
 * would be imported cut short, and the rest written into a file no longer in the folder. Measured on this
 * node's clock between its own looks, so a file stamped by another machine's clock (cp -p, rsync -t, a
 * network share) is neither taken early nor left waiting for a time in the future.
 */
export const dropSettleMs = 2_000;

export interface DropFoldersDeps {
  /** Holds `inbox/{account}/{profile}/`, the drop folder of each profile. */
  readonly dataDir: string;
  /** The imports as the store holds them: whether a claim's import still runs, or its file was received. */
  readonly files: Pick<FileStatusStore, "find">;
  readonly logger: Logger;
  /** For tests: how old an abandoned claim must be before it is given back (default claimGiveBackMs). */
  readonly claimGiveBackMs?: number;
  /** For tests: how long a dropped file must stay unchanged before it is taken (default dropSettleMs), by which clock (default Date.now). */
  readonly dropSettleMs?: number;
  readonly settleClock?: () => number;
}

/**
 * DEC-OPS-04: the drop folders, `inbox/{account}/{profile}/` under the data directory. A file is taken once it
 * has settled, by renaming it to a claim, so that of two nodes sharing a folder one takes it; a file that is
 * refused or cannot be stored goes to `rejected/` beside it, and a claim its receiver left is given back.
 * What it remembers (the files seen settling, its claims) is its own: two instances in one process share
 * nothing, and each takes the other's claims for those of another process.
 */
export class DropFolders implements DropFolderInbox {
  private readonly inbox: string;
  /** Claims these folders are receiving now: any other claim naming this process's id is left over. */
  private readonly activeClaims = new Set<string>();
  /** Claims whose receipt failed with an error (the store busy or full): given back once nothing imports the name. */
  private readonly failedClaims = new Set<string>();
  /** What each dropped file looked like when this node first saw it so (dropSettleMs). */
  private dropped = new DroppedFiles();
  private readonly claimGiveBackMs: number;
  private readonly settleMs: number;
  private readonly settleClock: () => number;

  constructor(private readonly deps: DropFoldersDeps) {
    this.inbox = join(deps.dataDir, "inbox");
    this.claimGiveBackMs = deps.claimGiveBackMs ?? claimGiveBackMs;
    this.settleMs = deps.dropSettleMs ?? dropSettleMs;
    this.settleClock = deps.settleClock ?? Date.now;
  }

  /** The drop folder of a profile. */
  pathOf(account: string, profile: string): string {
    return join(this.inbox, account, profile);
  }

  /** Makes the drop folder of a profile, so an operator finds where to put files. */
  async prepare(account: string, profile: string): Promise<void> {
    await mkdir(this.pathOf(account, profile), { recursive: true });
  }

  /**
   * Takes the settled files of every drop folder (names starting with a period are left alone, so a file is
   * written under such a name and renamed when complete) and hands each to `receive`. A stored file is removed
   * from its folder; one refused or not stored is moved to `rejected/` beside it, under a name of its own
   * there, so the operator's file is never lost. Answers how many files it took.
   */
  async pickUp(receive: ReceiveDropped): Promise<number> {
    this.dropped.startLook();
    try {
      return await this.pickUpWith(receive);
    } finally {
      this.dropped.endLook();
    }
  }

  /** How long until the soonest file seen but not yet taken will have settled (0: it has), or null when none waits. */
  untilSettled(): number | null {
    const settledAt = this.dropped.soonestSettledAt(this.settleMs);
    return settledAt === null ? null : Math.max(0, settledAt - this.settleClock());
  }

  /**
   * svc-hub's own admin API (POST /admin/reset): removes every file waiting in the drop folders, with their
   * `rejected/` and any claim, leaving the folders themselves (an operator may have mounted one). Answers how
   * many files went.
   */
  async eraseAll(): Promise<number> {
    let removed = 0;
    for (const account of directoriesIn(this.inbox)) {
      for (const profile of directoriesIn(join(this.inbox, account))) {
        const folder = join(this.inbox, account, profile);
        for (const entry of entriesOf(folder)) removed += await removeCounting(join(folder, entry.name));
      }
    }
    return removed;
  }

  /** svc-hub's own admin API (POST /admin/reset): forgets the dropped files seen, whose folders were emptied. */
  forget(): void {
    this.dropped = new DroppedFiles();
    this.failedClaims.clear();
  }

  private async pickUpWith(receive: ReceiveDropped): Promise<number> {
    const inbox = this.inbox;
    let taken = 0;
    for (const account of directoriesIn(inbox)) {
      for (const profile of directoriesIn(join(inbox, account))) {
        const folder = join(inbox, account, profile);
        let entries = entriesOf(folder);
        if ((await this.giveBackAbandoned(folder, entries, account, profile)) > 0) entries = entriesOf(folder);
        const settleMs = this.settleMs;
        const now = this.settleClock();
        const names = entries
          .filter(
            (entry) =>
              entry.isFile() &&
              !entry.name.startsWith(".") &&
              (settleMs <= 0 || this.dropped.settled(join(folder, entry.name), now, settleMs)),
          )
          .map((entry) => entry.name)
          .sort();
        for (const name of names) {
          if (Buffer.byteLength(name) > maxClaimableNameBytes) {
            // Too long to be claimed under a longer name, and too long to be imported (150 characters).
            this.deps.logger.warn("dropped file refused", {
              account,
              profile,
              file: name,
              reason: "its name is too long",
            });
            await moveToRejected(folder, join(folder, name), name);
            continue;
          }
          // Renaming first claims the file: of two nodes sharing the folder, one wins and the other skips it.
          // The claim names its process and the file, so a claim its process left is given back (below).
          const claimed = join(folder, `${claimPrefix}${process.pid}.${randomBytes(4).toString("hex")}.${name}`);
          this.activeClaims.add(claimed);
          try {
            try {
              await rename(join(folder, name), claimed);
            } catch {
              continue;
            }
            taken += 1;
            let receipt: DropReceipt;
            try {
              receipt = await receive(account, profile, name, readLazily(claimed));
            } catch (error) {
              // The store failed (busy, full): the claim is given back at a later look, once no import of the
              // name is left unfinished, and taken again then. Without this it stayed hidden until a restart.
              this.failedClaims.add(claimed);
              throw error;
            }
            if (receipt.stored) {
              await rm(claimed, { force: true });
              continue;
            }
            this.deps.logger.warn("dropped file refused", { account, profile, file: name, reason: receipt.reason });
            const kept = await moveToRejected(folder, claimed, name);
            if (kept !== name)
              this.deps.logger.info("rejected file kept under another name", {
                account,
                profile,
                file: name,
                as: kept,
              });
          } finally {
            this.activeClaims.delete(claimed);
          }
        }
      }
    }
    return taken;
  }

  /**
   * Claims left in a drop folder (`.importing.<pid>.…`), renamed back to the dropped file's name so the next
   * look takes it again (its import failed to download and may be received again):
   * - one whose receipt by these folders failed with an error, once no import of its name is unfinished (a
   *   record the failed receipt left is first failed as a download by the import; taken again before that,
   *   the file would be refused as a name being imported);
   * - one left by a process that stopped while it received it: its process is not alive on this machine (or
   *   it names this process's id but is none of these folders' claims: a restart given the same id, as PID 1
   *   in a container, or another instance of this process sharing the folder) and it was made more than
   *   `claimGiveBackMs` ago, since a node of another machine sharing the folder may still be reading it until
   *   then.
   */
  private async giveBackAbandoned(
    folder: string,
    entries: readonly Dirent[],
    account: string,
    profile: string,
  ): Promise<number> {
    let givenBack = 0;
    for (const entry of entries) {
      const match = claimPattern.exec(entry.name);
      if (!entry.isFile() || !match) continue;
      const pid = Number(match[1]);
      const claimed = join(folder, entry.name);
      const name = match[2] as string;
      if (this.activeClaims.has(claimed)) continue;
      if (this.failedClaims.has(claimed)) {
        const record = await this.deps.files.find(account, profile, name);
        if (record && !record.finished) continue;
        this.failedClaims.delete(claimed);
      } else {
        if (pid !== process.pid && processIsAlive(pid)) continue;
        const claim = await stat(claimed).catch(() => null);
        if (claim === null || Date.now() - claim.ctimeMs < this.claimGiveBackMs) continue;
        // Its process stopped after the file was received whole (DOWNLOADED committed) but before it removed the
        // claim: the file is imported, and giving it back would have it refused as a name already imported.
        const record = await this.deps.files.find(account, profile, name);
        if (
          record &&
          currentState(record) !== "DOWNLOADING" &&
          !mayBeReceivedAgain(record) &&
          record.file.size === claim.size &&
          record.file.checksum === (await md5Of(claimed))
        ) {
          await rm(claimed, { force: true });
          this.deps.logger.info("a dropped file's claim left after its receipt is removed", { folder, file: name });
          continue;
        }
      }
      // A file dropped again under the same name meanwhile stays as it is.
      const given = await moveWithoutReplacing(claimed, join(folder, name));
      if (given) givenBack += 1;
      this.deps.logger.warn("a dropped file claimed by a process that stopped is given back", {
        folder,
        file: name,
        given,
      });
    }
    return givenBack;
  }
}

/** The dropped files seen so far, with what they looked like and since when (this node's clock). */
class DroppedFiles {
  private readonly seen = new Map<
    string,
    { readonly size: number; readonly mtimeMs: number; readonly since: number }
  >();
  /** The paths looked at since `startLook`: what the folders hold now. */
  private looked = new Set<string>();

  /** A new look at the folders begins. */
  startLook(): void {
    this.looked = new Set();
  }

  /** The look is over: files no longer in the folders are forgotten, so the map holds what the folders hold. */
  endLook(): void {
    for (const path of this.seen.keys()) if (!this.looked.has(path)) this.seen.delete(path);
  }

  /** When the soonest file seen but not yet taken will have been unchanged for `settleMs` (this node's clock), or null. */
  soonestSettledAt(settleMs: number): number | null {
    let soonest: number | null = null;
    for (const { since } of this.seen.values())
      soonest = soonest === null ? since + settleMs : Math.min(soonest, since + settleMs);
    return soonest;
  }

  /** Whether `path` has been seen unchanged for `settleMs` up to `now`; remembers it as it is otherwise. */
  settled(path: string, now: number, settleMs: number): boolean {
    this.looked.add(path);
    let found: { size: number; mtimeMs: number };
    try {
      found = statSync(path);
    } catch {
      this.seen.delete(path);
      return false;
    }
    const before = this.seen.get(path);
    if (before && before.size === found.size && before.mtimeMs === found.mtimeMs) {
      if (now - before.since < settleMs) return false;
      this.seen.delete(path);
      return true;
    }
    // A path seen for the first time, or changed since: from now on.
    this.seen.set(path, { size: found.size, mtimeMs: found.mtimeMs, since: now });
    return false;
  }
}

/** A longer name could not be claimed: the claim adds about 30 bytes, and a file system allows 255. */
const maxClaimableNameBytes = 200;

/**
 * Moves a file to `to` unless something is there already (false then). A hard link refuses to replace, so
 * two nodes cannot overwrite each other's; where the file system has no hard links, a rename after a look.
 */
async function moveWithoutReplacing(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return false;
    if (await pathExists(to)) return false;
    await rename(from, to);
    return true;
  }
  await rm(from, { force: true });
  return true;
}

/**
 * Moves a refused dropped file into `rejected/` under its name, or `<stem>~2<ext>`, `~3`… when a file of that
 * name was rejected before. Answers the name it was kept under.
 */
async function moveToRejected(folder: string, claimed: string, name: string): Promise<string> {
  const rejected = join(folder, "rejected");
  await mkdir(rejected, { recursive: true });
  const dot = name.lastIndexOf(".");
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  for (let attempt = 1; ; attempt += 1) {
    const candidate = attempt === 1 ? name : `${stem}~${attempt}${extension}`;
    if (await moveWithoutReplacing(claimed, join(rejected, candidate))) return candidate;
  }
}

/** The bytes of a file, opened only once they are read (a refused file is never opened, so it can be moved). */
async function* readLazily(path: string): AsyncIterable<Uint8Array> {
  yield* createReadStream(path);
}

/**
 * Looks in the drop folders of `dataDir` every `everyMs` and calls `onDropped` once, at the first file found, then
 * stops (the background thread on demand, which imports it, then looks itself). Returns what stops it sooner.
 */
export function watchDropFolders(dataDir: string, everyMs: number, onDropped: () => void): () => void {
  const inbox = join(dataDir, "inbox");
  const holdsFile = () =>
    directoriesIn(inbox).some((account) =>
      directoriesIn(join(inbox, account)).some((profile) =>
        entriesOf(join(inbox, account, profile)).some((entry) => entry.isFile() && !entry.name.startsWith(".")),
      ),
    );
  const timer = setInterval(() => {
    if (!holdsFile()) return;
    clearInterval(timer);
    onDropped();
  }, everyMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
