/**
 * The virtual clock: an offset from real time, set and advanced through svc-hub's own admin API, and the admin
 * wait that moves it to the time background work falls due.
 */

export { drainAdvancingClock, type FastForwardOptions, type FastForwardReport } from "./fast-forward.use-cases.ts";
export {
  advanceClock,
  type ClockChangeError,
  type ClockOffset,
  parseDuration,
  setClockTo,
  virtualNow,
} from "./virtual-clock.rules.ts";
