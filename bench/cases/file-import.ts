/**
 * Case 4: importing a file of 1,000,000 rows through the admin upload
 * (POST /admin/accounts/{a}/profiles/{p}/files/{fileName}, the raw CSV, 202), timed until the file's status
 * record says PROCESSED (GET /v1/omnichannel/.../files/{fileName}); rows per second and the server's peak RSS.
 * The profile worker applies the imported events meanwhile and after (see the details).
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { cpuPercent, cpuTicksOf, peakRssMbOf, rssMbOf } from "../lib/proc.ts";
import { type CaseReport, fmt, mb } from "../lib/report.ts";
import { type BenchContext, logIn, startService } from "../lib/servers.ts";

/** A CSV of the demo's `purchases` definition (email, amount, purchased_at `yyyy-MM-dd HH:mm`); its size in bytes. */
export async function writePurchasesCsv(path: string, rows: number): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  let chunk = "email,amount,purchased_at\n";
  for (let row = 1; row <= rows; row += 1) {
    const day = String(1 + (row % 28)).padStart(2, "0");
    const hour = String(row % 24).padStart(2, "0");
    const minute = String(row % 60).padStart(2, "0");
    chunk += `visitor${row % 100_000}@example.com,${(row % 997) + 0.99},2026-0${1 + (row % 9)}-${day} ${hour}:${minute}\n`;
    if (chunk.length > 1 << 16) {
      bytes += Buffer.byteLength(chunk);
      if (!out.write(chunk)) await once(out, "drain");
      chunk = "";
    }
  }
  bytes += Buffer.byteLength(chunk);
  out.end(chunk);
  await once(out, "finish");
  return bytes;
}

interface StatusEntry {
  state: string;
  lines_successfully_processed?: number;
  lines_failed_processing?: number;
  lines_skipped?: number;
}

export async function fileImportCase(ctx: BenchContext): Promise<CaseReport> {
  const title = "4. File import";
  const rows = ctx.quick ? 20_000 : 1_000_000;
  ctx.log(`${title} (${fmt(rows)} rows)`);
  const fileName = `purchases_bench${Date.now()}.csv`;
  const csv = join(ctx.scratch, fileName);
  const fileBytes = await writePurchasesCsv(csv, rows);
  const service = await startService(ctx, join(ctx.scratch, "file-import"));
  try {
    const session = await logIn(service.url);
    const rssBefore = rssMbOf(service.pid);
    const cpuBefore = cpuTicksOf(service.pid);
    const started = performance.now();
    const upload = await fetch(`${service.url}/admin/accounts/acme/profiles/main/files/${fileName}`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.adminToken}`, "content-type": "text/csv" },
      body: Bun.file(csv),
    });
    const uploadText = await upload.text();
    if (upload.status === 404) {
      ctx.log("  not available: the server has no file upload (404)");
      return {
        id: "import",
        title,
        outcome: "not available",
        rows: [],
        details: [
          `The server answered the upload with 404 (${uploadText.slice(0, 120)}): this build has no file import, so there is nothing to measure.`,
        ],
        targets: [
          {
            goal: "Import at least 50,000 rows/s, peak memory under 300 MB",
            met: null,
            found: "no file import in this build",
          },
        ],
      };
    }
    if (upload.status !== 202) throw new Error(`the upload answered ${upload.status}: ${uploadText}`);
    const uploadSeconds = (performance.now() - started) / 1000;
    ctx.log(`  uploaded ${mb(fileBytes / 1024 / 1024)} in ${uploadSeconds.toFixed(1)} s; waiting for PROCESSED`);

    const statusUrl = `${service.url}/v1/omnichannel/accounts/acme/profiles/main/files/${fileName}?utk=${encodeURIComponent(session.utk)}`;
    const deadline = performance.now() + (ctx.quick ? 120_000 : 400_000);
    let last: StatusEntry | undefined;
    for (;;) {
      const answer = await fetch(statusUrl, { headers: { cookie: session.cookie } });
      if (answer.ok) {
        const record = (await answer.json()) as { status: StatusEntry[] };
        last = record.status.at(-1);
        if (last && (last.state === "PROCESSED" || last.state === "FAILED")) break;
      } else await answer.text();
      if (performance.now() > deadline) break;
      await Bun.sleep(100);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuPercent(cpuTicksOf(service.pid) - cpuBefore, seconds);
    const peak = peakRssMbOf(service.pid);
    const processed = last?.state === "PROCESSED";
    const rate = processed ? rows / seconds : null;
    ctx.log(`  ${last?.state ?? "no status"} after ${seconds.toFixed(1)} s: ${fmt(rate)} rows/s, peak RSS ${mb(peak)}`);
    const counts = last
      ? `${fmt(last.lines_successfully_processed ?? null)} imported, ${fmt(last.lines_failed_processing ?? null)} failed, ${fmt(last.lines_skipped ?? null)} skipped`
      : "–";
    return {
      id: "import",
      title,
      outcome: "measured",
      rows: [
        {
          label: `${title} (${fmt(rows)} rows, admin upload)`,
          rate,
          unit: "rows/s",
          p50Ms: null,
          p99Ms: null,
          bareRate: null,
          ratio: null,
          serverCpuPercent: cpu,
          serverPeakRssMb: peak,
          loadCpuPercent: null,
        },
      ],
      details: [
        `- A CSV of ${fmt(rows)} rows (${mb(fileBytes / 1024 / 1024)}) for the demo's \`purchases\` definition, uploaded with ` +
          `\`POST /admin/accounts/acme/profiles/main/files/${fileName.replace(/\d+/, "<id>")}\` (202 after ${uploadSeconds.toFixed(1)} s), ` +
          `then its status polled every 100 ms until ${processed ? "PROCESSED" : "it ended or the time ran out"}: ${seconds.toFixed(1)} s from the start of the upload, ` +
          `${rate === null ? "no rate" : `**${fmt(rate)} rows/s**`}. Counters of the last status: ${counts}.`,
        `- Server RSS: ${mb(rssBefore)} before the upload, peak ${mb(peak)} (VmHWM of the process, start included); CPU ${Math.round(cpu)}% of one core over the import.`,
        "- The imported rows become events, which the profile worker applies to visitor profiles in the background. It takes turns with the import in the " +
          "server's background thread (a batch each per scheduler pass), so part of that work falls within this figure and the rest comes after it.",
      ],
      targets: [
        {
          goal: `Import at least 50,000 rows/s, peak memory under 300 MB (${fmt(rows)} rows)`,
          met: rate !== null && peak !== null ? rate >= 50_000 && peak < 300 : false,
          found: `${fmt(rate)} rows/s, peak ${mb(peak)}`,
        },
      ],
    };
  } finally {
    await service.stop(ctx.quick ? 5_000 : 10_000);
  }
}
