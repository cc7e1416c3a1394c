import {
  type CollectJournal,
  type CollectJournalEntry,
  viewOfJournalEntry,
} from "../../core/collect/collect-journal.ts";
import { connectionOf } from "./connection.ts";

/** How often an open feed writes a comment, so that proxies and the server's idle timeout keep it open. */
export const keepAliveMs = 15_000;

/**
 * The most messages a feed may hold that its reader has not taken: a reader that slow (or gone without a word)
 * is ended rather than let the node's memory grow; it reconnects with Last-Event-ID and is replayed what it missed.
 */
const maxUnread = 1000;

const encoder = new TextEncoder();

/** One server-sent message of an entry: its id (the reader's Last-Event-ID), the event name `collect`, its JSON. */
export function messageOf(entry: CollectJournalEntry): string {
  // JSON.stringify writes no line break (those inside strings are escaped), so the data is one line.
  return `id: ${entry.id}\nevent: collect\ndata: ${JSON.stringify(viewOfJournalEntry(entry))}\n\n`;
}

export interface EventStreamsOptions {
  /** Default keepAliveMs (tests shorten it). */
  readonly keepAliveMs?: number;
}

/**
 * The live feeds open on this node (GET /admin/events/live, server-sent events): each one replays what it was
 * asked for, then writes every new entry of the collection journal as it is recorded. A feed ends, leaving no
 * listener behind, when its reader goes away, falls too far behind, or the server stops (`closeAll`): a
 * response that never ends would otherwise hold up a graceful stop until its connection is cut.
 */
export class EventStreams {
  private readonly ends = new Set<() => void>();
  private closed = false;
  private readonly keepAliveMs: number;

  constructor(options: EventStreamsOptions = {}) {
    this.keepAliveMs = options.keepAliveMs ?? keepAliveMs;
  }

  /**
   * The response of one feed: `replay` (entries already in the journal, oldest first), then each new entry of
   * `journal`. Subscribed in the same turn as `replay` was read, so no entry falls between the two.
   */
  open(request: Request, journal: CollectJournal, replay: readonly CollectJournalEntry[]): Response {
    let end: () => void = () => undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        let ended = false;
        let unsubscribe: () => void = () => undefined;
        let timer: ReturnType<typeof setInterval> | undefined;
        end = () => {
          if (ended) return;
          ended = true;
          unsubscribe();
          clearInterval(timer);
          request.signal.removeEventListener("abort", end);
          this.ends.delete(end);
          try {
            controller.close();
          } catch {
            // Already closed or errored by the reader's side: nothing left to end.
          }
        };
        const write = (text: string) => {
          if (ended) return;
          controller.enqueue(encoder.encode(text));
          if ((controller.desiredSize ?? 0) < -maxUnread) end();
        };
        if (this.closed || request.signal.aborted) {
          end();
          return;
        }
        this.ends.add(end);
        request.signal.addEventListener("abort", end);
        // A first line at once: the reader's fetch resolves, and a proxy sees the stream has started.
        write(": connected\n\n");
        for (const entry of replay) write(messageOf(entry));
        unsubscribe = journal.subscribe((entry) => write(messageOf(entry)));
        timer = setInterval(() => write(": keep-alive\n\n"), this.keepAliveMs);
        (timer as { unref?: () => void }).unref?.();
      },
      cancel: () => end(),
    });
    // Past the server's idle timeout: the keep-alive comments are the traffic now; a connection silent for
    // three of their periods has lost its reader.
    connectionOf(request).keepOpenFor(Math.ceil((this.keepAliveMs * 3) / 1000));
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
    return this.ends.size;
  }

  /** Ends every open feed, and every one opened from now on at once (the server is stopping). */
  closeAll(): void {
    this.closed = true;
    for (const end of [...this.ends]) end();
  }
}
