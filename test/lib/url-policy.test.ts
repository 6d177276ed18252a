/**
 * The outside-URL policy, class by class: a table of spellings per address range and host-name
 * family, and properties over generated spellings of non-public IPv4 addresses embedded in every
 * IPv6 form that carries or routes to IPv4.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkOutsideUrl } from "../../src/lib/url-policy";

const prod = { allowLoopback: false };
const refused = (url: string) => checkOutsideUrl(url, prod).ok === false;

const TABLE: Record<string, string[]> = {
  "IPv4 loopback, private, link-local, CGNAT, reserved": [
    "https://127.0.0.1/x",
    "https://127.1/x",
    "https://2130706433/x",
    "https://0x7f000001/x",
    "https://0177.0.0.1/x",
    "https://10.0.0.1/x",
    "https://172.16.5.4/x",
    "https://192.168.1.1/x",
    "https://169.254.169.254/latest/meta-data",
    "https://100.64.0.1/x",
    "https://0.0.0.0/x",
    "https://192.0.0.8/x",
    "https://198.18.0.1/x",
    "https://240.0.0.1/x",
    "https://255.255.255.255/x",
    "https://224.0.0.1/x",
  ],
  "IPv4-mapped, in every spelling": [
    "https://[::ffff:127.0.0.1]/x",
    "https://[::ffff:7f00:1]/x",
    "https://[::ffff:0:7f00:1]/x",
    "https://[::ffff:0:a00:1]/x",
    "https://[0:0:0:0:0:ffff:127.0.0.1]/x",
    "https://[::FFFF:A9FE:A9FE]/x",
  ],
  "IPv4-compatible (::/96)": ["https://[::7f00:1]/x", "https://[::127.0.0.1]/x", "https://[::8.8.8.8]/x"],
  "6to4 (2002::/16)": ["https://[2002:7f00:1::]/x", "https://[2002:a9fe:a9fe::1]/x", "https://[2002:0808:0808::1]/x"],
  "Teredo (2001::/32)": ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x", "https://[2001::1]/x"],
  "NAT64 (64:ff9b::/96, 64:ff9b:1::/48)": [
    "https://[64:ff9b::7f00:1]/x",
    "https://[64:ff9b::a9fe:a9fe]/x",
    "https://[64:ff9b:1::1]/x",
  ],
  "IPv6 loopback, unspecified, ULA, link-local, site-local, multicast": [
    "https://[::1]/x",
    "https://[::]/x",
    "https://[fc00::1]/x",
    "https://[fd12:3456::1]/x",
    "https://[fe80::1]/x",
    "https://[fec0::1]/x",
    "https://[feff::1]/x",
    "https://[ff02::1]/x",
  ],
  "discard-only, documentation, benchmarking": ["https://[100::1]/x", "https://[2001:db8::1]/x", "https://[2001:2::1]/x"],
  "local and internal names, however written": [
    "https://localhost/x",
    "https://LOCALHOST/x",
    "https://localhost./x",
    "https://localhost../x",
    "https://localhost.localdomain/x",
    "https://LocalHost.LocalDomain./x",
    "https://printer.localdomain/x",
    "https://api.localhost/x",
    "https://metadata/x",
    "https://metadata.google.internal/x",
    "https://db.internal./x",
    "https://nas.local/x",
    "https://router.home.arpa/x",
    "https://1.0.0.127.in-addr.arpa/x",
    "https://intranet/x",
    "https://intranet./x",
  ],
  "not HTTPS, or with credentials": ["http://example.com/x", "ftp://example.com/x", "https://user:pw@example.com/x"],
};

const PUBLIC = [
  "https://example.com/hook",
  "https://hooks.example.com./tasks?x=1",
  "https://8.8.8.8/x",
  "https://[2606:4700:4700::1111]/x",
  "https://[2a00:1450:4001:81c::200e]/x",
  "https://[100:0:0:1::1]/x",
];

describe("outside-URL policy", () => {
  for (const [range, urls] of Object.entries(TABLE)) {
    it.each(urls)(`refuses ${range}: %s`, (url) => expect(refused(url)).toBe(true));
  }
  it.each(PUBLIC)("allows the public %s", (url) => expect(checkOutsideUrl(url, prod).ok).toBe(true));

  it("allows loopback over http only where the configuration says so", () => {
    expect(checkOutsideUrl("http://127.0.0.1:9/x", { allowLoopback: true }).ok).toBe(true);
    expect(checkOutsideUrl("http://localhost:9/x", { allowLoopback: true }).ok).toBe(true);
    expect(checkOutsideUrl("http://10.0.0.1/x", { allowLoopback: true }).ok).toBe(false);
    expect(checkOutsideUrl("http://127.0.0.1:9/x", prod).ok).toBe(false);
  });
});

/** Non-public IPv4 addresses, as four octets. */
const privateV4 = fc.oneof(
  fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(0), fc.nat(255), fc.nat(255), fc.nat(255)),
);

const hex = (n: number) => n.toString(16);
const groups = ([a, b, c, d]: number[]) => [hex(((a as number) << 8) | (b as number)), hex(((c as number) << 8) | (d as number))];
const dotted = (o: number[]) => o.join(".");

/** Every IPv6 form that carries an IPv4 address or routes to one. */
const embeddings: ((o: number[]) => string)[] = [
  (o) => `::ffff:${dotted(o)}`,
  (o) => `::ffff:${groups(o).join(":")}`,
  (o) => `0:0:0:0:0:ffff:${groups(o).join(":")}`,
  (o) => `::ffff:0:${groups(o).join(":")}`,
  (o) => `::${groups(o).join(":")}`,
  (o) => `64:ff9b::${groups(o).join(":")}`,
  (o) => `64:ff9b::${dotted(o)}`,
  (o) => `2002:${groups(o).join(":")}::1`,
  (o) => `2001:0:4136:e378:8000:63bf:${groups(o.map((x) => 255 - x)).join(":")}`,
];

describe("outside-URL policy, over generated spellings", () => {
  it("refuses a non-public IPv4 address in any IPv6 embedding, any case, any zero padding", () => {
    fc.assert(
      fc.property(privateV4, fc.nat(embeddings.length - 1), fc.boolean(), fc.boolean(), (octets, form, upper, pad) => {
        let literal = (embeddings[form] as (o: number[]) => string)(octets);
        if (pad) literal = literal.replace(/\b([0-9a-f]{1,3})\b(?=:|$)/g, (g) => g.padStart(4, "0"));
        if (upper) literal = literal.toUpperCase();
        return refused(`https://[${literal}]/hook`);
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses the local machine's names in any case with any number of trailing dots and subdomains", () => {
    const zone = fc.constantFrom("localhost", "localhost.localdomain", "localdomain", "internal", "local", "home.arpa");
    const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);
    fc.assert(
      fc.property(zone, fc.array(label, { maxLength: 3 }), fc.nat(3), fc.boolean(), (z, labels, dots, upper) => {
        const sub = labels.length && z !== "localhost" && z !== "localhost.localdomain" ? `${labels.join(".")}.` : "";
        let host = `${sub}${z}${".".repeat(dots)}`;
        if (upper) host = host.toUpperCase();
        return refused(`https://${host}/hook`);
      }),
      { numRuns: 1000 },
    );
  });
});
