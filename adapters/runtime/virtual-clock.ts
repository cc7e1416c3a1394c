import {
  advanceClock,
  type ClockChangeError,
  type ClockOffset,
  setClockTo,
  virtualNow,
} from "../../core/clock/index.ts";
import type { MovableClock, SettingsStore } from "../../core/ports/index.ts";
import type { Result } from "../../core/result.ts";

const offsetKey = "clock.offsetMs";

/** The clock the service runs on: a MovableClock that the admin API may also advance by a duration. */
export interface VirtualClock extends MovableClock {
  advance(byMs: number): Promise<Result<number, ClockChangeError>>;
  /** Called after every change, so that work the change made due can run at once. */
  onChange(listener: () => void): void;
}

/**
 * DEC-OPS-02: the real clock shifted by an offset that is kept in the settings store, so a restart keeps the
 * virtual time where it was (time never jumps back because the process restarted), and every process on a
 * shared database moves with it: changes are compare-and-set on the stored offset (two advances at once
 * both count), and `refresh` picks up another process's change.
 */
export async function openVirtualClock(
  settings: SettingsStore,
  realNow: () => number = Date.now,
): Promise<VirtualClock> {
  const parse = (text: string | null): ClockOffset => ({ offsetMs: text === null ? 0 : Number(text) || 0 });
  let offset = parse(await settings.get(offsetKey));
  const listeners: Array<() => void> = [];
  const changed = () => {
    for (const listener of listeners) listener();
  };

  async function change(
    compute: (current: ClockOffset) => Result<ClockOffset, ClockChangeError>,
  ): Promise<Result<number, ClockChangeError>> {
    for (;;) {
      const stored = await settings.get(offsetKey);
      const next = compute(parse(stored));
      if (!next.ok) return next;
      if (await settings.compareAndSet(offsetKey, stored, String(next.value.offsetMs))) {
        offset = next.value;
        changed();
        return { ok: true, value: virtualNow(realNow(), offset) };
      }
    }
  }

  return {
    now: () => virtualNow(realNow(), offset),
    offsetMs: () => offset.offsetMs,
    set: (targetMs) => change(() => setClockTo(realNow(), targetMs)),
    advance: (byMs) => change((current) => advanceClock(realNow(), current, byMs)),
    async refresh() {
      const stored = parse(await settings.get(offsetKey));
      if (stored.offsetMs !== offset.offsetMs) {
        offset = stored;
        changed();
      }
    },
    onChange: (listener) => void listeners.push(listener),
  };
}
