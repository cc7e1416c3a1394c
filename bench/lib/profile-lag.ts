/**
 * The profile lag of a running service: how long the oldest stored event not yet applied to its visitor's
 * profile has waited (the `profiles` worker's `svc_hub_background_overdue_seconds` of GET /metrics), sampled
 * while a load runs. Issue 29 asks that profiles keep pace with collection; the peak during the load says how
 * far behind they fell, the drain after it (drainBackground) how long they took to catch up.
 */
import type { ServiceProcess } from "./servers.ts";

const overdueOfProfiles = /^svc_hub_background_overdue_seconds\{worker="profiles"\} (\S+)$/m;

/** The profiles' lag now, in ms (null when the metric is missing or the scrape failed). */
export async function profileLagMs(service: ServiceProcess): Promise<number | null> {
  try {
    const answer = await service.admin("GET", "/metrics");
    if (!answer.ok) return null;
    const found = overdueOfProfiles.exec(await answer.text());
    return found ? Number(found[1]) * 1000 : null;
  } catch {
    return null;
  }
}

/** Samples the lag every `everyMs` until `stop`, which answers the largest sample and how many were taken. */
export function sampleProfileLag(
  service: ServiceProcess,
  everyMs = 250,
): { stop(): Promise<{ peakMs: number | null; samples: number }> } {
  let peakMs: number | null = null;
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const lag = await profileLagMs(service);
      if (lag !== null) {
        samples += 1;
        peakMs = Math.max(peakMs ?? 0, lag);
      }
      await Bun.sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { peakMs, samples };
    },
  };
}
