/**
 * A login flood from one client address, in a process of its own so that its work does not delay the
 * measuring client's (reliability/login-flood.test.ts): `bun reliability/login-flooder.ts <url> <path>
 * <secret field> <connections> <local address>`. Each of `connections` keep-alive connections, all from the
 * local address given, sends a wrong secret for a made-up name (a new one each time: each is a lockout record
 * of its own, so no lock ends the flood early) and sends the next as soon as the answer is in. Every 250 ms it
 * prints a JSON line: the requests in flight then, and the answers since the line before, by status. It stops
 * when its standard input closes.
 */
import http from "node:http";

const [url, path, field, connections, localAddress] = process.argv.slice(2);
if (!url || !path || !field || !connections || !localAddress)
  throw new Error("usage: login-flooder.ts <url> <path> <secret field> <connections> <local address>");
const target = new URL(url);
const secretField = field;
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
let stopped = false;
let sent = 0;
let inFlight = 0;
let answers = new Map<number, number>();

function attempt(username: string): Promise<number> {
  sent += 1;
  inFlight += 1;
  const body = new URLSearchParams({ username, [secretField]: "a-wrong-secret" }).toString();
  return new Promise<number>((resolve) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: "POST",
        agent,
        localAddress,
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", () => resolve(-1));
      },
    );
    // A refused or reset connection is counted (-1) and the loop goes on with a new one.
    request.on("error", () => resolve(-1));
    request.end(body);
  }).finally(() => {
    inFlight -= 1;
  });
}

async function flood(): Promise<void> {
  while (!stopped) {
    const status = await attempt(`made-up-${sent}-${crypto.randomUUID()}@example.com`);
    answers.set(status, (answers.get(status) ?? 0) + 1);
  }
}

const report = setInterval(() => {
  process.stdout.write(`${JSON.stringify({ inFlight, answers: Object.fromEntries(answers) })}\n`);
  answers = new Map();
}, 250);
process.stdin.on("end", () => {
  stopped = true;
});
process.stdin.resume();
await Promise.all(Array.from({ length: Number(connections) }, flood));
clearInterval(report);
agent.destroy();
