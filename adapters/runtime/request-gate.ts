import { ServiceBusyError } from "../../core/errors/index.ts";
import type { RequestAdmission } from "../../core/ports/index.ts";

/**
 * svc-hub's own admin API (POST /admin/reset): the requests the service is answering, so a reset can run
 * alone (the core's RequestAdmission port). `pass` lets a request through at once while no reset runs; one
 * that arrives during a reset waits for its end. `alone` closes the gate, waits for the requests already in
 * flight to be answered (so every event acknowledged before the reset's answer is committed, and erased by
 * it), runs the reset, and opens the gate again. A reset that failed after it erased the store leaves the gate
 * refusing (`refuseAll`): every request is answered 503 with Retry-After until a reset succeeds, rather than
 * by a half-reset service.
 */
export class RequestGate implements RequestAdmission {
  private inFlight = 0;
  private whenIdle: (() => void) | null = null;
  /** Resolves when the reset running now ends; null while none runs. */
  private closed: Promise<void> | null = null;
  private refusing = false;

  /** How many requests are being answered now (the service's metrics). */
  get inFlightCount(): number {
    return this.inFlight;
  }

  /** Runs `handle` for one request, or answers `refuse()` while the service is left unusable by a failed reset. */
  pass(handle: () => Promise<Response>, refuse: () => Response): Promise<Response> {
    // Counted in the same turn as it arrives while the gate is open, so a reset started after it waits for it.
    if (this.closed === null && !this.refusing) return this.run(handle);
    return this.passLater(handle, refuse);
  }

  /**
   * Closes the gate, waits up to `waitMs` for the requests in flight to be answered, and runs `work` while
   * no other request runs. Requests in flight past `waitMs` (a slow upload) make it a ServiceBusyError (503)
   * with nothing done. One `alone` at a time: a second one waits for the first.
   */
  async alone<T>(waitMs: number, work: () => Promise<T>): Promise<T> {
    while (this.closed) await this.closed;
    let open!: () => void;
    this.closed = new Promise<void>((resolve) => (open = resolve));
    try {
      if (!(await this.idleWithin(waitMs)))
        throw new ServiceBusyError(`${this.inFlight} requests in flight were not answered within ${waitMs} ms`);
      return await work();
    } finally {
      this.closed = null;
      open();
    }
  }

  /** Whether every request is refused (a reset failed after it erased the store); a reset that succeeds turns it off. */
  refuseAll(refusing: boolean): void {
    this.refusing = refusing;
  }

  private async passLater(handle: () => Promise<Response>, refuse: () => Response): Promise<Response> {
    while (this.closed) await this.closed;
    return this.refusing ? refuse() : this.run(handle);
  }

  private async run(handle: () => Promise<Response>): Promise<Response> {
    this.inFlight += 1;
    try {
      return await handle();
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) this.whenIdle?.();
    }
  }

  private idleWithin(waitMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.whenIdle = null;
        resolve(false);
      }, waitMs);
      this.whenIdle = () => {
        clearTimeout(timer);
        this.whenIdle = null;
        resolve(true);
      };
    });
  }
}
