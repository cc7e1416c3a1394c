import { err, ok, type Result } from "../result.ts";

/**
 * DEC-OPS-02: the virtual clock is the real clock shifted by an offset. Setting or advancing it changes the
 * offset only, so time keeps flowing at the real pace from the new point. Time never moves backwards
 * unless it is set explicitly.
 */
export interface ClockOffset {
  readonly offsetMs: number;
}

export type ClockChangeError = "not-a-time" | "negative-advance" | "out-of-range";

/** Latest instant the clock may be set to: the largest a JavaScript Date can hold. */
const maxEpochMs = 8_640_000_000_000_000;

export function virtualNow(realNowMs: number, clock: ClockOffset): number {
  return realNowMs + clock.offsetMs;
}

/** The offset that makes the virtual clock read `targetMs` now. */
export function setClockTo(realNowMs: number, targetMs: number): Result<ClockOffset, ClockChangeError> {
  if (!Number.isFinite(targetMs)) return err("not-a-time");
  if (targetMs < 0 || targetMs > maxEpochMs) return err("out-of-range");
  return ok({ offsetMs: targetMs - realNowMs });
}

/** The offset after moving the clock forward by `byMs`. */
export function advanceClock(
  realNowMs: number,
  clock: ClockOffset,
  byMs: number,
): Result<ClockOffset, ClockChangeError> {
  if (!Number.isFinite(byMs)) return err("not-a-time");
  if (byMs < 0) return err("negative-advance");
  const target = virtualNow(realNowMs, clock) + byMs;
  if (target > maxEpochMs) return err("out-of-range");
  return ok({ offsetMs: clock.offsetMs + byMs });
}

const durationUnits: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Reads a duration such as `1500`, `"90s"`, `"10m"`, `"30d"` or `"1d12h"` as milliseconds.
 * A bare number is milliseconds.
 */
export function parseDuration(input: string | number): Result<number, "not-a-duration"> {
  if (typeof input === "number") return Number.isFinite(input) && input >= 0 ? ok(input) : err("not-a-duration");
  const text = input.trim();
  if (/^\d+$/.test(text)) return ok(Number(text));
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let consumed = 0;
  for (const match of text.matchAll(part)) {
    total += Number(match[1]) * (durationUnits[match[2] as string] as number);
    consumed += match[0].length;
  }
  if (consumed === 0 || consumed !== text.length) return err("not-a-duration");
  return ok(Math.round(total));
}
