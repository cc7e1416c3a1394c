/**
 * The scenarios' multipart/form-data bodies (DEC-OPS-04's publish route; REV-06's member names): made with the
 * platform's FormData and written by Request, then read back by a real multipart parser, the one svc-hub's route
 * uses (`Request.formData()`), and looked at byte for byte where a scenario depends on what goes out as sent.
 */
import { describe, expect, test } from "bun:test";
import { formDataOf } from "./multipart.ts";

const url = "http://127.0.0.1/admin/accounts/acme/profiles/main/revisions";

describe("multipart bodies", () => {
  test("a server's multipart parser reads back every field, in order with repeats, and every file", async () => {
    const loader = new Uint8Array([0, 1, 2, 255, 13, 10, 45, 45]);
    const request = new Request(url, {
      method: "POST",
      body: formDataOf(
        [
          ["name", "Release"],
          ["targets", "prod"],
          ["targets", "qa"],
        ],
        [
          { filename: "utag.js", bytes: loader },
          { filename: "utag.1.js", bytes: "/* tag 1 */\n", contentType: "text/javascript" },
          { field: "extra", filename: "mobile.html", bytes: "" },
        ],
      ),
    });
    expect(request.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=\S+$/);
    const parsed = [...(await request.formData())];
    expect(parsed.map(([name, value]) => [name, typeof value === "string" ? value : (value as File).name])).toEqual([
      ["name", "Release"],
      ["targets", "prod"],
      ["targets", "qa"],
      ["file", "utag.js"],
      ["file", "utag.1.js"],
      ["extra", "mobile.html"],
    ]);
    const files = parsed.map(([, value]) => value).filter((value): value is File => typeof value !== "string");
    expect(new Uint8Array(await files[0]!.arrayBuffer())).toEqual(loader);
    expect(await files[1]!.text()).toBe("/* tag 1 */\n");
    expect(files[1]!.type).toMatch(/^text\/javascript\b/);
    expect(files[2]!.size).toBe(0);
  });

  test("a filename goes out as given, quotes and line breaks escaped as browsers do", async () => {
    // The publish route's refusals of member names (REV-06) are only checked if these reach the server unchanged.
    const names = ["../utag.1.js", "..\\utag.1.js", "/etc/cron.d/utag.1.js", "tags/utag.1.js", 'a"b\r\nc.js'];
    const body = await new Request(url, {
      method: "POST",
      body: formDataOf(
        [],
        names.map((filename) => ({ filename, bytes: "x" })),
      ),
    }).text();
    const sent = [...body.matchAll(/filename="([^"]*)"/g)].map((match) => match[1]);
    expect(sent).toEqual([
      "../utag.1.js",
      "..\\utag.1.js",
      "/etc/cron.d/utag.1.js",
      "tags/utag.1.js",
      "a%22b%0D%0Ac.js",
    ]);
  });
});
