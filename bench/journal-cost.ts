/**
 * `bun bench/journal-cost.ts`: the CPU the request journal adds to one GET /event, in-process: the journal's
 * wrapper (adapters/http/faults-and-journal.ts) around a handler that answers the pixel as the collection route
 * does, with the journal off (a budget of 0) and on (the default 4 MiB), in turns. Prints µs of CPU a request.
 */
import { answerWithKnownBody, withFaultsAndJournal } from "../adapters/http/faults-and-journal.ts";
import { defaultRequestJournalBytes, FaultPlan, RequestJournal } from "../core/testing-tools/index.ts";

const gif = new Uint8Array(Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64"));
const handle = async (request: Request) =>
  answerWithKnownBody(
    request,
    new Response(gif, { headers: { "content-type": "image/gif", "set-cookie": "TAPID=acme/main>abc|" } }),
    gif,
  );
const url =
  "http://127.0.0.1/event?svc_account=acme&svc_profile=main&svc_event=page_view&page_name=Product%20detail" +
  "&page_type=product&page_url=https%3A%2F%2Fshop.example.com%2Fp%2F12345&product_id=SKU-12345&cb=1";
const headers = {
  "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Safari/537.36",
  referer: "https://shop.example.com/p/12345",
  accept: "*/*",
};

async function cpuMicrosPerRequest(maxBytes: number, requests: number): Promise<number> {
  const tools = {
    faults: new FaultPlan({ randomUnit: Math.random }),
    requestJournal: new RequestJournal({ maxBytes }),
  };
  const wrapped = withFaultsAndJournal(handle, tools, {}, () => "/event");
  const before = process.cpuUsage();
  for (let index = 0; index < requests; index += 1) await (await wrapped(new Request(url, { headers }))).arrayBuffer();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}

for (let round = 1; round <= 4; round += 1) {
  const off = await cpuMicrosPerRequest(0, 20_000);
  const on = await cpuMicrosPerRequest(defaultRequestJournalBytes, 20_000);
  console.log(`round ${round}: journal off ${off.toFixed(1)} µs, on ${on.toFixed(1)} µs a request`);
}
