/** Timing presets: how long the service waits before work it schedules (publishing, deletion). */

export { type TimingPreset, type TimingPresetName, timingPresetNames, timingPresets } from "./timing.presets.ts";
