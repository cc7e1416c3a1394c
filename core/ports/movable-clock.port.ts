import type { ClockChangeError } from "../clock/virtual-clock.rules.ts";
import type { Result } from "../result.ts";
import type { Clock } from "./clock.port.ts";

/**
 * What the admin wait that moves the virtual clock (core/clock/fast-forward.use-cases.ts) needs of it (DEC-OPS-02):
 * to read it, to see a change another process made, and to move it to the time work falls due. The virtual clock
 * of adapters/runtime/virtual-clock.ts is one.
 */
export interface MovableClock extends Clock {
  /** Virtual minus real time, in milliseconds: how far the clock has been moved in all. */
  offsetMs(): number;
  /** Moves the clock so that it reads `targetMs` now, and answers the time it reads after the change. */
  set(targetMs: number): Promise<Result<number, ClockChangeError>>;
  /** Reads the offset kept in the store, so that a change made by another process is seen here. */
  refresh(): Promise<void>;
}
