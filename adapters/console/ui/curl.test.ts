import { describe, expect, test } from "bun:test";
import { curlCommandOf, shellQuote } from "./curl.ts";

/** What a POSIX shell makes of `command`'s words: each printed on a line of its own, NUL-separated. */
function wordsOf(command: string): string[] {
  const shown = Bun.spawnSync(["sh", "-c", `printf '%s\\0' ${command.replace(/^curl /, "")}`]);
  return new TextDecoder().decode(shown.stdout).split("\0").slice(0, -1);
}

const hostile = `it's "quoted" $(touch /tmp/pwned) \`id\` $HOME \\ ; | & > < * ? [a] {b,c} ~ #\nnext line\t'`;

describe("the console's curl command (issue 43)", () => {
  test("a quoted argument reaches the program exactly, whatever it holds", () => {
    for (const text of [hostile, "", "'", "''", "a'b'c", "\n", "-X DELETE"]) {
      expect(wordsOf(`curl ${shellQuote(text)}`)).toEqual([text]);
    }
  });

  test("a GET is its URL with the query string as received, and the headers collection reads", () => {
    const query = `svc_account=acme&note=${encodeURIComponent(hostile)}&raw='$(x)'`;
    const command = curlCommandOf(
      {
        method: "GET",
        query,
        contentType: null,
        body: null,
        cookie: "TAPID=acme/main>v-1|",
        referer: null,
        userAgent: hostile,
      },
      "http://127.0.0.1:8080",
    );
    expect(wordsOf(command)).toEqual([
      "--globoff",
      `http://127.0.0.1:8080/event?${query}`,
      "-H",
      `User-Agent: ${hostile}`,
      "-H",
      "Cookie: TAPID=acme/main>v-1|",
    ]);
  });

  test("a POST sends its body as it came, with its Content-Type or none", () => {
    const body = JSON.stringify({ svc_account: "acme", note: hostile });
    const request = {
      method: "POST" as const,
      query: "",
      contentType: null,
      body,
      cookie: null,
      referer: "https://shop.example/?a='b'",
      userAgent: null,
    };
    expect(wordsOf(curlCommandOf(request, "http://h"))).toEqual([
      "--globoff",
      "http://h/event",
      "-H",
      "User-Agent:",
      "-H",
      "Referer: https://shop.example/?a='b'",
      "-X",
      "POST",
      "-H",
      "Content-Type:",
      "--data-binary",
      body,
    ]);
  });
});
