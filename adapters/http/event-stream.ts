import { type CollectJournal, type CollectJournalEntry, viewOfJournalEntry } from "../../core/collect/index.ts";
import { connectionOf, idleTimeoutSeconds } from "./connection.ts";

/** How often an open feed writes a comment, so that proxies and the server's idle timeout keep it open. */
export const keepAliveMs = 15_000;

/**
 * The most bytes of new messages a feed holds that its reader's connection has not taken (second probe, finding
 * 3): a reader that slow (a stalled tab, or one gone without a word) is ended rather than let the node's memory
 * grow with every event; it reconnects with Last-Event-ID and is replayed what the journal still holds. Counted
 * in bytes, not messages: a thousand events of 1 MiB are a gigabyte.
 */
export const readerBudgetBytes = 4 * 1024 * 1024;

const encoder = new TextEncoder();
const connectedLine = encoder.encode(": connected\n\n");
const keepAliveLine = encoder.encode(": keep-alive\n\n");

/** One server-sent message of an entry: its id (the reader's Last-Event-ID), the event name `collect`, its JSON. */
export function messageOf(entry: CollectJournalEntry): string {
  // JSON.stringify writes no line break (those inside strings are escaped), so the data is one line.
  return `id: ${entry.id}\nevent: collect\ndata: ${JSON.stringify(viewOfJournalEntry(entry))}\n\n`;
}

export interface EventStreamsOptions {
  /** Default keepAliveMs (tests shorten it). */
  readonly keepAliveMs?: number;
  /** Default readerBudgetBytes (tests shorten it). */
  readonly readerBudgetBytes?: number;
}

/** What the open feeds hold for their readers: messages (replayed or new) not yet taken, and their bytes. */
export interface HeldMessages {
  readonly messages: number;
  readonly bytes: number;
}

/**
 * The live feeds open on this node (GET /admin/events/live, server-sent events): each one replays what it was
 * asked for, then writes every new entry of the collection journal as it is recorded. A feed ends, leaving no
 * listener behind, when its reader goes away, falls more than its byte budget behind, or the server stops
 * (`closeAll`): a response that never ends would otherwise hold up a graceful stop until its connection is cut.
 *
 * Each entry is serialised once, into bytes that every feed sends (and keeps while its reader has not taken
 * them), however many feeds are open: three console tabs must not hold three copies of each event.
 */
export class EventStreams {
  private readonly feeds = new Set<LiveFeed>();
  private closed = false;
  private readonly keepAliveMs: number;
  private readonly readerBudgetBytes: number;
  /** Each entry's message, made for the first feed that sends it; kept while the entry is (journal or a feed). */
  private readonly messages = new WeakMap<CollectJournalEntry, Uint8Array>();

  constructor(options: EventStreamsOptions = {}) {
    this.keepAliveMs = options.keepAliveMs ?? keepAliveMs;
    this.readerBudgetBytes = options.readerBudgetBytes ?? readerBudgetBytes;
  }

  /**
   * The response of one feed: `replay` (entries already in the journal, oldest first), then each new entry of
   * `journal`. Subscribed in the same turn as `replay` was read, so no entry falls between the two.
   */
  open(request: Request, journal: CollectJournal, replay: readonly CollectJournalEntry[]): Response {
    const connection = connectionOf(request);
    let feed: LiveFeed | undefined;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          if (this.closed || request.signal.aborted) {
            controller.close();
            return;
          }
          const opened = new LiveFeed(controller, replay, this.readerBudgetBytes, this.messageBytesOf);
          feed = opened;
          const end = () => opened.end();
          this.feeds.add(opened);
          request.signal.addEventListener("abort", end);
          const unsubscribe = journal.subscribe((entry) => opened.send(this.messageBytesOf(entry)));
          const timer = setInterval(() => opened.send(keepAliveLine), this.keepAliveMs);
          (timer as { unref?: () => void }).unref?.();
          opened.onEnd((behind) => {
            unsubscribe();
            clearInterval(timer);
            request.signal.removeEventListener("abort", end);
            this.feeds.delete(opened);
            // What the connection already took is the network's to deliver: back to the ordinary idle timeout,
            // so a stalled connection does not keep it for three keep-alive periods.
            if (behind) connection.keepOpenFor(idleTimeoutSeconds);
          });
        },
        pull: () => feed?.pull(),
        cancel: () => feed?.end(),
      },
      // Nothing waits in the stream itself beyond the message asked for: the feed's own queue is the one counted.
      { highWaterMark: 0 },
    );
    // Past the server's idle timeout: the keep-alive comments are the traffic now; a connection silent for
    // three of their periods has lost its reader.
    connection.keepOpenFor(Math.ceil((this.keepAliveMs * 3) / 1000));
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-store, must-revalidate",
        // nginx and the like would otherwise hold the messages back to fill a buffer.
        "x-accel-buffering": "no",
      },
    });
  }

  /** How many feeds are open. */
  get openCount(): number {
    return this.feeds.size;
  }

  /**
   * What the open feeds hold, every reference counted as a collector would: the replay and the new messages their
   * readers have not taken, never one already sent, however long a feed stays open.
   */
  get held(): HeldMessages {
    let messages = 0;
    let bytes = 0;
    for (const feed of this.feeds) {
      for (const held of feed.heldMessages()) {
        messages += 1;
        // A replayed entry not sent yet may have no message made: the journal's byte cap counts it then.
        bytes += held instanceof Uint8Array ? held.byteLength : (this.messages.get(held)?.byteLength ?? 0);
      }
    }
    return { messages, bytes };
  }

  /** Ends every open feed, and every one opened from now on at once (the server is stopping). */
  closeAll(): void {
    this.closed = true;
    for (const feed of [...this.feeds]) feed.end();
  }

  /** The bytes of an entry's message, serialised the first time any feed sends it and shared from then on. */
  private readonly messageBytesOf = (entry: CollectJournalEntry): Uint8Array => {
    let message = this.messages.get(entry);
    if (message === undefined) {
      message = encoder.encode(messageOf(entry));
      this.messages.set(entry, message);
    }
    return message;
  };
}

/**
 * First in, first out, letting go of each item as it is taken: a reader always one message behind must not keep
 * every message sent since its queue was last empty (second probe, finding 3). The emptied slots are given back
 * once they are half the array, so each move is paid for by as many takes.
 */
class Fifo<T> {
  private items: Array<T | undefined>;
  private head = 0;

  constructor(items: readonly T[] = []) {
    this.items = [...items];
  }

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, no longer held here; undefined when there is none. */
  take(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head += 1;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Every slot of the array that still refers to an item (what it holds, as a collector sees it). */
  *held(): Generator<T> {
    for (const item of this.items) if (item !== undefined) yield item;
  }
}

/**
 * One feed's side of its stream, pulled by its connection: the replay first, then the new messages in the order
 * sent. A message goes to the stream only when the connection asks for the next one; until then it waits here,
 * where the new ones are counted against the budget. The replay is not counted (it is what the journal held, at
 * most its own byte cap), so a reader that reconnects after a burst is not ended at once. Each replayed entry and
 * each message is let go as it goes to the stream.
 */
class LiveFeed {
  private replay: Fifo<CollectJournalEntry>;
  /** New messages not yet taken by the connection, oldest first, and their bytes. */
  private queued = new Fifo<Uint8Array>();
  private queuedBytes = 0;
  /** The connection asked for a message when there was none: the next one goes to it at once. */
  private asked = false;
  private ended = false;
  private onEnded: (behind: boolean) => void = () => undefined;

  constructor(
    private readonly controller: ReadableStreamDefaultController<Uint8Array>,
    replay: readonly CollectJournalEntry[],
    private readonly budgetBytes: number,
    private readonly messageBytesOf: (entry: CollectJournalEntry) => Uint8Array,
  ) {
    this.replay = new Fifo(replay);
    // A first line at once: the reader's fetch resolves, and a proxy sees the stream has started.
    controller.enqueue(connectedLine);
  }

  /** Called once when the feed ends; `behind` when it ended because its reader passed the budget. */
  onEnd(listener: (behind: boolean) => void): void {
    this.onEnded = listener;
  }

  /** The connection asks for the next message. */
  pull(): void {
    if (this.ended) return;
    const message = this.next();
    if (message === undefined) this.asked = true;
    else this.controller.enqueue(message);
  }

  /**
   * A new message (shared with every other feed: never changed here). One message alone is always sent,
   * however large; more than the budget waiting ends the feed.
   */
  send(message: Uint8Array): void {
    if (this.ended) return;
    if (this.asked) {
      this.asked = false;
      this.controller.enqueue(message);
      return;
    }
    this.queued.push(message);
    this.queuedBytes += message.byteLength;
    if (this.queuedBytes > this.budgetBytes && this.queued.length > 1) this.finish(true);
  }

  /** What this feed still refers to: entries of the replay, and new messages. */
  *heldMessages(): Generator<CollectJournalEntry | Uint8Array> {
    yield* this.replay.held();
    yield* this.queued.held();
  }

  /** Ends the stream after what it already holds, dropping what waits here. */
  end(): void {
    this.finish(false);
  }

  private finish(behind: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.replay = new Fifo();
    this.queued = new Fifo();
    this.queuedBytes = 0;
    this.onEnded(behind);
    try {
      this.controller.close();
    } catch {
      // Already closed or errored by the reader's side: nothing left to end.
    }
  }

  private next(): Uint8Array | undefined {
    const entry = this.replay.take();
    if (entry !== undefined) return this.messageBytesOf(entry);
    const message = this.queued.take();
    if (message !== undefined) this.queuedBytes -= message.byteLength;
    return message;
  }
}
