import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The settings of a profile window, from the environment; null when SVC_CPU_PROFILE_DIR is not set. */
export interface ProfileWindow {
  readonly dir: string;
  readonly delayMs: number;
  readonly durationMs: number;
}

export function profileWindowOf(env: Readonly<Record<string, string | undefined>>): ProfileWindow | null {
  const dir = env.SVC_CPU_PROFILE_DIR;
  if (dir === undefined || dir === "") return null;
  const seconds = (name: string, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    return Number.isFinite(value) && value >= 0 ? value : fallback;
  };
  return {
    dir,
    delayMs: seconds("SVC_CPU_PROFILE_DELAY_S", 0) * 1000,
    durationMs: seconds("SVC_CPU_PROFILE_S", 10) * 1000,
  };
}

/**
 * A CPU profile of this thread over a window of time, written as `<dir>/<thread>-<pid>.cpuprofile` (the format
 * Chrome DevTools opens, and bench/profile-summary.ts reads). Every thread of the server calls it at its start,
 * so that one window shows the HTTP thread, the background thread and the lookup thread side by side: Bun's
 * own --cpu-prof writes the main thread's only. Nothing happens unless SVC_CPU_PROFILE_DIR is set; the window
 * opens SVC_CPU_PROFILE_DELAY_S seconds after the start (0) and lasts SVC_CPU_PROFILE_S seconds (10).
 */
export function profileThisThread(thread: string, window: ProfileWindow | null): void {
  if (window === null) return;
  const started = setTimeout(async () => {
    // The inspector's module is loaded by a profiled start only: every other start is spared its loading.
    const { Session } = await import("node:inspector/promises");
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
    const ended = setTimeout(async () => {
      const { profile } = await session.post("Profiler.stop");
      session.disconnect();
      mkdirSync(window.dir, { recursive: true });
      writeFileSync(join(window.dir, `${thread}-${process.pid}.cpuprofile`), JSON.stringify(profile));
    }, window.durationMs);
    ended.unref();
  }, window.delayMs);
  started.unref();
}
