/** The virtual clock: an offset from real time, set and advanced through svc-hub's own admin API. */

export {
  advanceClock,
  type ClockChangeError,
  type ClockOffset,
  parseDuration,
  setClockTo,
  virtualNow,
} from "./virtual-clock.rules.ts";
