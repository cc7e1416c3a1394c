/**
 * The ceiling of the machine: a bare `Bun.serve` that answers every request with the same 43-byte GIF as
 * GET /event (reading the body first, if there is one). Nothing else: no routing, no logging, no storage.
 * `bun bench/bare-server.ts` prints `listening <port>` once it listens on 127.0.0.1 (PORT, default 0: a free port).
 */
export const gifBase64 = "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==";

if (import.meta.main) {
  const gif = new Blob([Buffer.from(gifBase64, "base64")], { type: "image/gif" });
  const server = Bun.serve({
    port: Number(process.env.PORT ?? "0"),
    hostname: "127.0.0.1",
    async fetch(request) {
      if (request.body) await request.arrayBuffer();
      return new Response(gif, { headers: { "content-type": "image/gif", "cache-control": "no-store" } });
    },
  });
  process.stdout.write(`listening ${server.port}\n`);
  process.on("SIGTERM", () => {
    void server.stop(true);
    process.exit(0);
  });
}
