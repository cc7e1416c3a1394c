/**
 * The live feed (GET /admin/events/live, server-sent events) read with fetch and a stream reader, so that the
 * admin token goes in a header (EventSource cannot send one). Reconnects after a pause, from the last id seen.
 */
import { authHeaders } from "./api.ts";
import type { JournalEntry } from "./types.ts";

export type FeedState = "connecting" | "live" | "retrying";

export interface FeedHandlers {
  readonly entry: (entry: JournalEntry) => void;
  readonly state: (state: FeedState) => void;
}

/** One server-sent message's fields, from the lines between two blank lines. */
function fieldsOf(block: string): { id?: string; event?: string; data: string } {
  const fields: { id?: string; event?: string; data: string } = { data: "" };
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (name === "data") data.push(value);
    else if (name === "id") fields.id = value;
    else if (name === "event") fields.event = value;
  }
  fields.data = data.join("\n");
  return fields;
}

/** Follows the feed until `signal` aborts; replays the last `replay` entries on the first connection. */
export async function followFeed(handlers: FeedHandlers, signal: AbortSignal, replay = 200): Promise<void> {
  let lastId: string | null = null;
  while (!signal.aborted) {
    handlers.state("connecting");
    try {
      const headers: Record<string, string> = { ...authHeaders(), accept: "text/event-stream" };
      if (lastId !== null) headers["last-event-id"] = lastId;
      const query = lastId === null ? `?replay=${replay}` : "";
      const response = await fetch(`/admin/events/live${query}`, { headers, signal, credentials: "omit" });
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      handlers.state("live");
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, "\n");
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const message = fieldsOf(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
          if (message.id !== undefined) lastId = message.id;
          if (message.event === "collect" && message.data) handlers.entry(JSON.parse(message.data) as JournalEntry);
        }
      }
    } catch {
      if (signal.aborted) return;
    }
    handlers.state("retrying");
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}
