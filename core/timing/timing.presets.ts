/**
 * DEC-OPS-02, DEC-DLE-06, DEC-PRV-04, LIM-03, LIM-05: how long background work waits before it is done.
 * Every delay runs on the virtual clock, so advancing the clock makes due work run at once.
 */
export type TimingPresetName = "instant" | "fast" | "realistic";

export interface TimingPreset {
  readonly name: TimingPresetName;
  /** A data layer upload becomes completed after this long (realistic: 5 to 10 minutes). */
  readonly dataLayerUploadDelayMs: { readonly min: number; readonly max: number };
  /** An update or delete becomes completed after this long (realistic: up to 1 hour). */
  readonly dataLayerChangeDelayMs: { readonly min: number; readonly max: number };
  /** A visitor deletion runs after this long (realistic: days). */
  readonly visitorDeleteDelayMs: number;
}

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

export const timingPresets: Readonly<Record<TimingPresetName, TimingPreset>> = {
  instant: {
    name: "instant",
    dataLayerUploadDelayMs: { min: 0, max: 0 },
    dataLayerChangeDelayMs: { min: 0, max: 0 },
    visitorDeleteDelayMs: 0,
  },
  fast: {
    name: "fast",
    dataLayerUploadDelayMs: { min: 1000, max: 1000 },
    dataLayerChangeDelayMs: { min: 1000, max: 1000 },
    visitorDeleteDelayMs: 2000,
  },
  realistic: {
    name: "realistic",
    dataLayerUploadDelayMs: { min: 5 * minute, max: 10 * minute },
    dataLayerChangeDelayMs: { min: 5 * minute, max: hour },
    visitorDeleteDelayMs: 3 * day,
  },
};

export const timingPresetNames = Object.keys(timingPresets) as TimingPresetName[];

/** A delay inside [min, max], chosen by `unit` in [0, 1) (the caller's randomness, so the rule stays pure). */
export function pickDelay(range: { readonly min: number; readonly max: number }, unit: number): number {
  const clamped = Math.min(Math.max(unit, 0), 1);
  return Math.round(range.min + (range.max - range.min) * clamped);
}
