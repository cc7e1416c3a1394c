/**
 * The self time of a CPU profile (`.cpuprofile`, as adapters/runtime/thread-profile.ts writes one a thread),
 * by function, as a Markdown table: `bun bench/profile-summary.ts <file>… [--top N]`.
 *
 * A sample is charged to the function on top of the stack, native functions called from JavaScript included
 * (`libsql_js::…` is SQLite's work). Bun's profiler samples a thread only while it runs, so each row's share is
 * of the thread's busy time, not of the window: the window's CPU per thread comes from Linux
 * (bench/profile-threads.ts prints both).
 */
import { readFileSync } from "node:fs";
import { basename, relative, resolve } from "node:path";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

export interface SelfTime {
  readonly name: string;
  readonly samples: number;
  readonly share: number;
}

const root = resolve(import.meta.dir, "..");

/** Where a function is: a path under the repository (or a package's path under node_modules), and its line. */
function placeOf(frame: ProfileNode["callFrame"]): string {
  if (frame.url === "") return "";
  const path = frame.url.replace(/^file:\/\//, "");
  const shown = path.includes("/node_modules/")
    ? path.slice(path.lastIndexOf("/node_modules/") + 14)
    : path.startsWith(root)
      ? relative(root, path)
      : basename(path);
  return ` (${shown}:${frame.lineNumber + 1})`;
}

/** Self samples by function, most first. */
export function selfTimes(profile: CpuProfile): { readonly total: number; readonly rows: SelfTime[] } {
  const nameOf = new Map<number, string>();
  for (const node of profile.nodes)
    nameOf.set(node.id, `${node.callFrame.functionName || "(anonymous)"}${placeOf(node.callFrame)}`);
  const counts = new Map<string, number>();
  for (const id of profile.samples) {
    const name = nameOf.get(id) ?? "(unknown)";
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const total = profile.samples.length;
  const rows = [...counts]
    .map(([name, samples]) => ({ name, samples, share: samples / Math.max(1, total) }))
    .sort((a, b) => b.samples - a.samples);
  return { total, rows };
}

export function summaryOf(path: string, top: number): string {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const { total, rows } = selfTimes(profile);
  const seconds = (profile.endTime - profile.startTime) / 1e6;
  return [
    `**${basename(path)}**: ${total.toLocaleString("en-US")} samples over ${seconds.toFixed(1)} s`,
    "",
    "| Self % | Function |",
    "|---:|---|",
    ...rows.slice(0, top).map((row) => `| ${(row.share * 100).toFixed(1)} | ${row.name.replaceAll("|", "\\|")} |`),
    "",
  ].join("\n");
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const topAt = args.indexOf("--top");
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
  const files = args.filter((arg, index) => arg !== "--top" && !(topAt >= 0 && index === topAt + 1));
  for (const file of files) process.stdout.write(`${summaryOf(file, top)}\n`);
}
