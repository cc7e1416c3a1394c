import { describeError } from "../errors/describe-error.ts";
import type { Clock } from "../ports/clock.port.ts";
import type { EventLoop } from "../ports/event-loop.port.ts";
import type { Logger } from "../ports/logger.port.ts";
import type { RateCountStore } from "../ports/rate-counts.store.ts";
import type { CollectRateLimiter, PendingExchange } from "./rate-limiter.ts";

export interface RateExchangeDeps {
  readonly store: RateCountStore;
  readonly clock: Clock;
  /** This node in the store's counts: unique among the processes sharing it (a random id per start). */
  readonly node: string;
  readonly logger: Logger;
  /** How long since the latest exchange began (monotonic time): an early exchange is not made right after one. */
  readonly eventLoop: EventLoop;
  /** How often the host calls `exchange` (`limits.collectRateExchangeMs`). */
  readonly everyMs: number;
}

/**
 * COL-15, DEC-COL-07 for nodes sharing a store: one exchange gives the store what this node was offered and
 * admitted per account and second, and reads what the other nodes were (CollectRateLimiter.exchangeAt,
 * settleExchange); the host calls `exchange` every `limits.collectRateExchangeMs`, off the path of any event.
 * Only the accounts that had an event here in this second or the one before are exchanged: a node that is not
 * collecting does not ask the store anything. One exchange runs at a time: a call while one runs answers when
 * that one is done (so a host that stops awaits the last call before it closes the store).
 *
 * Why every 40 ms by default (Limits.collectRateExchangeMs): what a node reads of another was given to the store
 * at that node's latest exchange and read at this node's, so it is at most two intervals and two round trips
 * old: 100 ms with round trips up to 10 ms. In a steady flood that age costs nothing, since each node keeps to
 * its share of the limit and the shares add up to it (accountHasRoom). It counts where the shares do not yet
 * know of a change and the other nodes' admissions of this second are what holds the limit: the admissions of
 * the last 100 ms are not seen yet, and at the default 100 events a second, admissions at that pace over 100 ms
 * are 10, the 10% the limit is kept to. (A flood that starts on every node in the same instant is faster than
 * that pace, and its first second can pass the limit by what the nodes admit before their counts are read.)
 * If the store cannot be reached, each node goes on with the counts it read, and past the next second with its
 * own alone (the limit per node, as before nodes shared it); the failure is logged once, and the recovery.
 */
export class RateExchanger {
  private running: Promise<void> | null = null;
  private failing = false;
  private startedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly limiter: CollectRateLimiter,
    private readonly deps: RateExchangeDeps,
  ) {}

  exchange(): Promise<void> {
    if (this.running) return this.running;
    const pending = this.limiter.exchangeAt(this.deps.clock.now(), this.deps.node);
    if (pending === null) return Promise.resolve();
    this.startedAt = this.deps.eventLoop.monotonicMs();
    this.running = this.settle(pending).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /**
   * An exchange now, not at the next call, for an account that had an event here before any exchange asked
   * about it (CollectRateLimiter.hasUnreadAccounts): a node that joins a flood on the others learns their
   * counts within a round trip, not an interval. Not while one runs, nor within an eighth of an interval of the
   * latest, so that accounts coming and going cannot make exchanges run back to back.
   */
  exchangeEarly(): void {
    if (this.running || this.deps.eventLoop.monotonicMs() - this.startedAt < this.deps.everyMs / 8) return;
    void this.exchange();
  }

  private async settle(pending: PendingExchange): Promise<void> {
    try {
      const others = await this.deps.store.exchange(pending.exchange);
      this.limiter.settleExchange(pending, others);
      if (this.failing) this.deps.logger.info("the collection rate counts are shared again");
      this.failing = false;
    } catch (error) {
      if (!this.failing)
        this.deps.logger.warn(
          "the collection rate counts could not be shared; this node counts its own until they are",
          {
            error: describeError(error),
          },
        );
      this.failing = true;
    }
  }
}
