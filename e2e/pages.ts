/**
 * The test pages: a small Bun server on its own loopback port, so that the pages' origin
 * (`http://localhost:<port>`) is another origin, and another site, than the service (`http://127.0.0.1:<port>`).
 */

export interface PageServer {
  readonly port: number;
  /** Serves this HTML under a new path; returns the path. */
  add(html: string): string;
  /** The address of a path under a host name that resolves to loopback (localhost by default). */
  url(path: string, host?: string): string;
  stop(): void;
}

export function startPageServer(): PageServer {
  const pages = new Map<string, string>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const html = pages.get(new URL(request.url).pathname);
      if (html === undefined) return new Response(null, { status: 404 });
      return new Response(html, {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      });
    },
  });
  const port = server.port as number;
  return {
    port,
    add(html) {
      const path = `/page-${pages.size + 1}.html`;
      pages.set(path, html);
      return path;
    },
    url: (path, host = "localhost") => `http://${host}:${port}${path}`,
    stop: () => void server.stop(true),
  };
}

/**
 * A minimal HTML document around a body. `note(text)` appends a line to the page, so that a failure's
 * screenshot shows what the page did.
 */
export function html(body: string, head = ""): string {
  return [
    '<!doctype html><html><head><meta charset="utf-8"><title>svc-hub e2e</title><link rel="icon" href="data:,">',
    "<script>window.note = function (text) { var line = document.createElement('div'); line.textContent = String(text); (document.getElementById('notes') || document.body).appendChild(line); };</script>",
    `${head}</head><body><h1>svc-hub browser suite</h1><div id="notes"></div>${body}<script>note("page " + location.href);</script></body></html>`,
  ].join("");
}

/** Text for an HTML attribute or element. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
