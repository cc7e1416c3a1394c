/** Who the client is behind proxies (SVC_TRUSTED_PROXIES): docs/running-it-yourself.md, SECURITY.md. */
import { describe, expect, it } from "bun:test";
import { canonicalAddress, clientAddressOf, compileProxyTrust } from "./proxy-trust.ts";

describe("the client's address", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddressOf("198.51.100.7", "203.0.113.1", compileProxyTrust([]))).toBe("198.51.100.7");
  });

  it("is the peer when the peer is not a trusted proxy: a client cannot name itself", () => {
    expect(clientAddressOf("198.51.100.7", "203.0.113.1", compileProxyTrust(["10.0.0.0/8"]))).toBe("198.51.100.7");
  });

  it("behind a trusted proxy, is the address the proxy appended, not one the client wrote before it", () => {
    const trust = compileProxyTrust(["loopback"]);
    expect(clientAddressOf("127.0.0.1", "203.0.113.1", trust)).toBe("203.0.113.1");
    // The client sent `X-Forwarded-For: 192.0.2.99`; the proxy appended the address it saw.
    expect(clientAddressOf("127.0.0.1", "192.0.2.99, 203.0.113.1", trust)).toBe("203.0.113.1");
    expect(clientAddressOf("::1", "2001:db8::5", trust)).toBe("2001:db8::5");
  });

  it("walks back through a chain of trusted proxies to the first address that is not one", () => {
    const trust = compileProxyTrust(["loopback", "10.0.0.0/8"]);
    expect(clientAddressOf("127.0.0.1", "192.0.2.99, 203.0.113.1, 10.1.2.3", trust)).toBe("203.0.113.1");
  });

  it("is the proxy itself when the proxy sent no X-Forwarded-For", () => {
    expect(clientAddressOf("127.0.0.1", null, compileProxyTrust(["loopback"]))).toBe("127.0.0.1");
  });
});

describe("an address's one spelling (canonicalAddress)", () => {
  it("drops a port and brackets, and reads an IPv4-mapped IPv6 address as IPv4 in either form", () => {
    const cases: Array<[string, string | null]> = [
      ["203.0.113.7", "203.0.113.7"],
      ["203.0.113.7:50123", "203.0.113.7"],
      ["[2001:DB8::1]:443", "2001:db8::1"],
      ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
      ["::ffff:203.0.113.7", "203.0.113.7"],
      ["::ffff:cb00:7107", "203.0.113.7"],
      ["0:0:0:0:0:ffff:cb00:7107", "203.0.113.7"],
      ["fe80::1%eth0", "fe80::1%eth0"],
      ["unknown", null],
      ["proxy.example.com", null],
      ["127.1", null],
      ["0x7f.0.0.1", null],
      ["", null],
    ];
    for (const [text, canonical] of cases)
      expect(`${text} -> ${canonicalAddress(text)}`).toBe(`${text} -> ${canonical}`);
  });

  it("behind a trusted proxy, an entry that is not an address leaves the peer as the client; a port does not make a new client", () => {
    const trust = compileProxyTrust(["loopback"]);
    expect(clientAddressOf("127.0.0.1", "unknown", trust)).toBe("127.0.0.1");
    expect(clientAddressOf("127.0.0.1", "203.0.113.7:50123", trust)).toBe("203.0.113.7");
    expect(clientAddressOf("127.0.0.1", "[2001:db8::1]:443", trust)).toBe("2001:db8::1");
    expect(clientAddressOf("::ffff:127.0.0.1", "::ffff:cb00:7107", trust)).toBe("203.0.113.7");
  });

  it("without trust, a dual-stack socket's IPv4-mapped peer is its IPv4 address", () => {
    expect(clientAddressOf("::ffff:198.51.100.7", "203.0.113.1", compileProxyTrust([]))).toBe("198.51.100.7");
  });
});
