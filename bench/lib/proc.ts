/**
 * What Linux says about a process: CPU time (utime + stime of /proc/<pid>/stat, in clock ticks) and peak
 * resident memory (VmHWM of /proc/<pid>/status). The bench reads them for the server it measures, before and
 * after each run, so CPU is that of the run and memory the process's peak so far.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Linux's USER_HZ: the unit of utime and stime. 100 on every common build; `getconf CLK_TCK` says. */
export const clockTicksPerSecond = 100;

/**
 * utime + stime (fields 14 and 15) of a /proc/<pid>/stat line. The command name (field 2) is in parentheses
 * and may hold spaces or parentheses itself, so the fields are counted from the last `)`.
 */
export function parseCpuTicks(statLine: string): number {
  const end = statLine.lastIndexOf(")");
  if (end < 0) throw new Error(`not a /proc/<pid>/stat line: ${statLine.slice(0, 80)}`);
  const fields = statLine
    .slice(end + 2)
    .trim()
    .split(/\s+/);
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(`no utime/stime in: ${statLine.slice(0, 120)}`);
  return utime + stime;
}

/** A `VmHWM:` or `VmRSS:` line of /proc/<pid>/status, in MiB (null when the process has none, e.g. a zombie). */
export function parseStatusMb(status: string, field: "VmHWM" | "VmRSS"): number | null {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, "m").exec(status);
  return match ? Number(match[1]) / 1024 : null;
}

export function cpuTicksOf(pid: number): number {
  return parseCpuTicks(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

export function peakRssMbOf(pid: number): number | null {
  return parseStatusMb(readFileSync(`/proc/${pid}/status`, "utf8"), "VmHWM");
}

export function rssMbOf(pid: number): number | null {
  return parseStatusMb(readFileSync(`/proc/${pid}/status`, "utf8"), "VmRSS");
}

/** Percent of one core used over `seconds`, from a difference of clock ticks. */
export function cpuPercent(ticks: number, seconds: number): number {
  return seconds > 0 ? (ticks / clockTicksPerSecond / seconds) * 100 : 0;
}

/** The CPU ticks of each thread of a process, by `<name>/<tid>` (the thread's name from its stat line). */
export function threadTicksOf(pid: number): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const line = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = line.slice(line.indexOf("(") + 1, line.lastIndexOf(")"));
      ticks.set(`${name}/${tid}`, parseCpuTicks(line));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ticks;
}
