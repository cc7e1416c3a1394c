import { advanceClock, setClockTo, virtualNow, type ClockOffset } from "../../core/clock/virtual-clock.rules.ts";
import type { Clock } from "../../core/ports/clock.port.ts";
import type { SettingsStore } from "../../core/ports/settings.store.ts";
import type { Result } from "../../core/result.ts";
import type { ClockChangeError } from "../../core/clock/virtual-clock.rules.ts";

const offsetKey = "clock.offsetMs";

export interface VirtualClock extends Clock {
  offsetMs(): number;
  set(targetMs: number): Promise<Result<number, ClockChangeError>>;
  advance(byMs: number): Promise<Result<number, ClockChangeError>>;
  /** Called after every change, so that work the change made due can run at once. */
  onChange(listener: () => void): void;
}

/**
 * DEC-OPS-02: the real clock shifted by an offset that is kept in the settings store, so a restart keeps the
 * virtual time where it was (time never jumps back because the process restarted).
 */
export async function openVirtualClock(settings: SettingsStore, realNow: () => number = Date.now): Promise<VirtualClock> {
  const stored = await settings.get(offsetKey);
  let offset: ClockOffset = { offsetMs: stored === null ? 0 : Number(stored) || 0 };
  const listeners: Array<() => void> = [];

  async function apply(next: Result<ClockOffset, ClockChangeError>): Promise<Result<number, ClockChangeError>> {
    if (!next.ok) return next;
    await settings.set(offsetKey, String(next.value.offsetMs));
    offset = next.value;
    for (const listener of listeners) listener();
    return { ok: true, value: virtualNow(realNow(), offset) };
  }

  return {
    now: () => virtualNow(realNow(), offset),
    offsetMs: () => offset.offsetMs,
    set: (targetMs) => apply(setClockTo(realNow(), targetMs)),
    advance: (byMs) => apply(advanceClock(realNow(), offset, byMs)),
    onChange: (listener) => void listeners.push(listener),
  };
}
