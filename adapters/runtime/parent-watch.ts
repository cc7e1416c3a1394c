/**
 * Whether the server should stop once the process that started it is gone, and the watch that notices it.
 *
 * A parent that dies without passing its SIGTERM on (killed with SIGKILL, or a shell or `npx` shim between it and
 * the server that did not forward the signal) leaves the server reparented, still holding its port and its data
 * directory. svc-hub's own command and launcher set SVC_STOP_WITH_PARENT; npm sets npm_lifecycle_event for
 * `npm start` and `npx`. A server started by hand in the background (`nohup`, `&`) is not watched: it is meant
 * to outlive its shell.
 */
export function stopsWithParent(env: Record<string, string | undefined>): boolean {
  return env.SVC_STOP_WITH_PARENT === "true" || (env.npm_lifecycle_event ?? "") !== "";
}

/**
 * Calls `onGone` once the parent process has changed (the process was reparented, to init or a subreaper).
 * The timer does not keep the process alive. Returns what stops the watch.
 */
export function watchParent(onGone: () => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
