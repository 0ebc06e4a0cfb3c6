import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import {
  MAX_DESTINATION_LENGTH,
  checkDestination,
  isInternalAddress,
  normaliseDestination,
  type RefusalReason,
} from "./destination";

type Expectation = { url: string } | RefusalReason;

const accepted = (url: string): Expectation => ({ url });

const NORMALISATION_CASES: ReadonlyArray<readonly [string, Expectation]> = [
  ["HTTP://Example.COM", accepted("http://example.com/")],
  ["http://example.com", accepted("http://example.com/")],
  ["https://example.com:443/", accepted("https://example.com/")],
  ["http://example.com:80/a", accepted("http://example.com/a")],
  ["https://example.com:80/", accepted("https://example.com:80/")],
  ["http://example.com:8080", accepted("http://example.com:8080/")],
  ["http://example.com:080/", accepted("http://example.com/")],
  ["https://EXAMPLE.com./path", accepted("https://example.com/path")],
  ["http://example.com..:8080/", accepted("http://example.com:8080/")],
  ["https://ＥＸＡＭＰＬＥ.com/", accepted("https://example.com/")],
  ["http://ex%41mple.com/", accepted("http://example.com/")],
  ["http://bücher.example.org/", accepted("http://xn--bcher-kva.example.org/")],
  ["http://example.com/€", accepted("http://example.com/%E2%82%AC")],
  ["http://example.com/%e2%82%ac", accepted("http://example.com/%E2%82%AC")],
  ["http://example.com/a b", accepted("http://example.com/a%20b")],
  ["http://example.com/%7euser/a%2fb", accepted("http://example.com/~user/a%2Fb")],
  ["http://example.com/a%2Fb", accepted("http://example.com/a%2Fb")],
  ["http://example.com/a%2e%2E/b", accepted("http://example.com/a../b")],
  ["http://example.com/a/./b/../c", accepted("http://example.com/a/c")],
  ["http://example.com/a/%2e%2e/c", accepted("http://example.com/c")],
  ["http://example.com/%%414", accepted("http://example.com/%%414")],
  ["http://example.com/?", accepted("http://example.com/")],
  ["http://example.com/#", accepted("http://example.com/")],
  ["http://example.com/?#frag", accepted("http://example.com/#frag")],
  ["http://example.com/?b=2&a=1", accepted("http://example.com/?b=2&a=1")],
  ["http://example.com/?q=%7e%41&x=%2f", accepted("http://example.com/?q=~A&x=%2F")],
  ["http://example.com/#Section-2", accepted("http://example.com/#Section-2")],
  ["http://example.com/#%7eTop", accepted("http://example.com/#~Top")],
  ["http://example.com/path/", accepted("http://example.com/path/")],
  ["http://www.example.com/", accepted("http://www.example.com/")],
  ["  https://example.com/x  ", accepted("https://example.com/x")],
  ["http://@example.com/", accepted("http://example.com/")],
  ["http://localhost.example.com/", accepted("http://localhost.example.com/")],
  ["http://example.local.com/", accepted("http://example.local.com/")],
];

const IPV4_BOUNDARY_CASES: ReadonlyArray<readonly [string, Expectation]> = [
  ["http://0.255.255.255/", "internal_address"],
  ["http://1.0.0.0/", accepted("http://1.0.0.0/")],
  ["http://9.255.255.255/", accepted("http://9.255.255.255/")],
  ["http://10.0.0.0/", "internal_address"],
  ["http://10.255.255.255/", "internal_address"],
  ["http://11.0.0.0/", accepted("http://11.0.0.0/")],
  ["http://100.63.255.255/", accepted("http://100.63.255.255/")],
  ["http://100.64.0.0/", "internal_address"],
  ["http://100.127.255.255/", "internal_address"],
  ["http://100.128.0.0/", accepted("http://100.128.0.0/")],
  ["http://126.255.255.255/", accepted("http://126.255.255.255/")],
  ["http://127.0.0.1/", "internal_address"],
  ["http://127.255.255.255/", "internal_address"],
  ["http://128.0.0.0/", accepted("http://128.0.0.0/")],
  ["http://169.253.255.255/", accepted("http://169.253.255.255/")],
  ["http://169.254.0.1/", "internal_address"],
  ["http://169.255.0.0/", accepted("http://169.255.0.0/")],
  ["http://172.15.255.255/", accepted("http://172.15.255.255/")],
  ["http://172.16.0.0/", "internal_address"],
  ["http://172.31.255.255/", "internal_address"],
  ["http://172.32.0.0/", accepted("http://172.32.0.0/")],
  ["http://192.0.1.255/", accepted("http://192.0.1.255/")],
  ["http://192.0.2.1/", "internal_address"],
  ["http://192.167.255.255/", accepted("http://192.167.255.255/")],
  ["http://192.168.0.0/", "internal_address"],
  ["http://192.168.255.255/", "internal_address"],
  ["http://192.169.0.0/", accepted("http://192.169.0.0/")],
  ["http://198.17.255.255/", accepted("http://198.17.255.255/")],
  ["http://198.18.0.0/", "internal_address"],
  ["http://198.19.255.255/", "internal_address"],
  ["http://198.20.0.0/", accepted("http://198.20.0.0/")],
  ["http://198.51.100.7/", "internal_address"],
  ["http://203.0.113.9/", "internal_address"],
  ["http://223.255.255.255/", accepted("http://223.255.255.255/")],
  ["http://224.0.0.1/", "internal_address"],
  ["http://239.255.255.255/", "internal_address"],
  ["http://240.0.0.1/", "internal_address"],
  ["http://255.255.255.255/", "internal_address"],
  ["http://0.0.0.0/", "internal_address"],
];

const NUMERIC_ENCODING_CASES: ReadonlyArray<readonly [string, Expectation]> = [
  ["http://0/", "internal_address"],
  ["http://2130706433/", "internal_address"],
  ["http://0x7f000001/", "internal_address"],
  ["http://0x7f.1/", "internal_address"],
  ["http://127.1/", "internal_address"],
  ["http://0177.0.0.1/", "internal_address"],
  ["http://0x7f.0x0.0x0.0x1/", "internal_address"],
  ["http://127.0.0.1./", "internal_address"],
  ["http://%31%32%37.0.0.1/", "internal_address"],
  ["http://①②⑦.0.0.1/", "internal_address"],
  ["http://127。0。0。1/", "internal_address"],
  ["http://012.1/", "internal_address"],
  ["http://3232235521/", "internal_address"],
  ["http://0xc0.0xa8.1.1/", "internal_address"],
  ["http://2852039166/", "metadata_endpoint"],
  ["http://134744072/", accepted("http://8.8.8.8/")],
  ["http://0x08080808/", accepted("http://8.8.8.8/")],
  ["http://8.8.2056/", accepted("http://8.8.8.8/")],
  ["http://1.2.3/", accepted("http://1.2.0.3/")],
];

const IPV6_CASES: ReadonlyArray<readonly [string, Expectation]> = [
  ["http://[::1]/", "internal_address"],
  ["http://[::]/", "internal_address"],
  ["http://[0:0:0:0:0:0:0:1]:8080/", "internal_address"],
  ["http://[::ffff:127.0.0.1]/", "internal_address"],
  ["http://[::ffff:7f00:1]/", "internal_address"],
  ["http://[::ffff:8.8.8.8]/", "internal_address"],
  ["http://[::7f00:1]/", "internal_address"],
  ["http://[::8.8.8.8]/", "internal_address"],
  ["http://[64:ff9b::a00:1]/", "internal_address"],
  ["http://[64:ff9b:1::a00:1]/", "internal_address"],
  ["http://[2002:c0a8:101::1]/", "internal_address"],
  ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "internal_address"],
  ["http://[fe80::1]/", "internal_address"],
  ["http://[fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]/", accepted("http://[fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]/")],
  ["http://[fc00::]/", "internal_address"],
  ["http://[fd12:3456::1]/", "internal_address"],
  ["http://[fec0::1]/", "internal_address"],
  ["http://[ff02::1]/", "internal_address"],
  ["http://[2001:db8::1]/", "internal_address"],
  ["http://[100::1]/", "internal_address"],
  ["http://[2606:4700:4700::1111]/", accepted("http://[2606:4700:4700::1111]/")],
  ["HTTP://[2606:4700:4700:0:0:0:0:1111]:443/", accepted("http://[2606:4700:4700::1111]:443/")],
  ["https://[2001:4860:4860::8888]:443/dns", accepted("https://[2001:4860:4860::8888]/dns")],
  ["http://[fe80::1%25eth0]/", "invalid_url"],
];

const METADATA_CASES: ReadonlyArray<readonly [string, Expectation]> = [
  ["http://169.254.169.254/latest/meta-data/", "metadata_endpoint"],
  ["http://[::ffff:a9fe:a9fe]/", "metadata_endpoint"],
  ["http://[fd00:ec2::254]/", "metadata_endpoint"],
  ["http://100.100.100.200/", "metadata_endpoint"],
  ["http://168.63.129.16/", "metadata_endpoint"],
  ["http://168.63.129.15/", accepted("http://168.63.129.15/")],
  ["http://168.63.129.17/", accepted("http://168.63.129.17/")],
  ["http://metadata.google.internal/computeMetadata/v1/", "metadata_endpoint"],
  ["http://METADATA.Google.Internal./", "metadata_endpoint"],
  ["http://metadata.goog/", "metadata_endpoint"],
  ["http://metadata/", "internal_name"],
];

const NAME_CASES: ReadonlyArray<readonly [string, Expectation]> = [
  ["http://localhost/", "internal_name"],
  ["http://LOCALHOST./", "internal_name"],
  ["http://api.localhost:3000/", "internal_name"],
  ["http://printer.local/", "internal_name"],
  ["http://db.internal/", "internal_name"],
  ["http://host.localdomain/", "internal_name"],
  ["http://router.home.arpa/", "internal_name"],
  ["http://site.test/", "internal_name"],
  ["http://thing.invalid/", "internal_name"],
  ["http://www.example/", "internal_name"],
  ["http://duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion/", "internal_name"],
  ["http://intranet/", "internal_name"],
  ["http://kubernetes./", "internal_name"],
  ["http://notlocal.com/", accepted("http://notlocal.com/")],
  // Private-use and special-use suffixes (RFC 6762 appendix G, RFC 8375, RFC 9476, the IANA registry).
  ["http://nas.lan/", "internal_name"],
  ["http://router.home/", "internal_name"],
  ["http://printer.HOME.ARPA./", "internal_name"],
  ["http://wiki.corp/", "internal_name"],
  ["http://fritz.box/", "internal_name"],
  ["http://webmail.mail/", "internal_name"],
  ["http://portal.intranet/", "internal_name"],
  ["http://files.private/", "internal_name"],
  ["http://build.internal/", "internal_name"],
  ["http://name.alt/", "internal_name"],
  ["http://api.default.svc/", "internal_name"],
  ["http://1.0.168.192.in-addr.arpa/", "internal_name"],
  ["http://1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa/", "internal_name"],
  ["http://ipv4only.arpa/", "internal_name"],
  ["http://lan.example.com/", accepted("http://lan.example.com/")],
  ["http://corp.example.com/", accepted("http://corp.example.com/")],
  ["http://mybox.com/", accepted("http://mybox.com/")],
  ["http://email.example.net/", accepted("http://email.example.net/")],
];

const SYNTAX_CASES: ReadonlyArray<readonly [string, Expectation]> = [
  ["ftp://example.com/", "scheme"],
  ["javascript:alert(1)", "scheme"],
  ["file:///etc/passwd", "scheme"],
  ["data:text/html,hi", "scheme"],
  ["mailto:someone@example.com", "scheme"],
  ["ws://example.com/", "scheme"],
  ["example.com", "invalid_url"],
  ["", "invalid_url"],
  ["http://", "invalid_url"],
  ["//example.com/", "invalid_url"],
  ["http://999.1.1.1/", "invalid_url"],
  ["http://./", "invalid_url"],
  ["http://a..b/", "invalid_url"],
  ["http://.example.com/", "invalid_url"],
  ["http://exa mple.com/", "invalid_url"],
  ["http://example.com:65536/", "invalid_url"],
  ["http://user@example.com/", "userinfo"],
  ["http://user:pass@example.com/", "userinfo"],
  ["http://:pass@example.com/", "userinfo"],
  ["http://good.com@evil.com/", "userinfo"],
  ["http://exa\tmple.com/", "control_chars"],
  ["http://example.com/\n", "control_chars"],
  ["http://example.com/a\rb", "control_chars"],
  ["http://example.com/\u0000", "control_chars"],
  ["http://example.com/\u007f", "control_chars"],
  ["http://example.com/\u0085", "control_chars"],
  ["http://evil.com\\@good.com/", "control_chars"],
  ["http:\\\\example.com\\", "control_chars"],
  ["http://example.com:0/", "port"],
  ["http://example.com:00/", "port"],
  ["http://example.com:65535/", accepted("http://example.com:65535/")],
];

const LONGEST_PATH = "a".repeat(MAX_DESTINATION_LENGTH - "https://example.com/".length);
const LENGTH_CASES: ReadonlyArray<readonly [string, Expectation]> = [
  [`https://example.com/${LONGEST_PATH}`, accepted(`https://example.com/${LONGEST_PATH}`)],
  [`https://example.com/${LONGEST_PATH}b`, "too_long"],
  // Judged after normalisation: decoding %7E brings this back under the limit.
  [`https://example.com/${LONGEST_PATH.slice(1)}%7E`, accepted(`https://example.com/${LONGEST_PATH.slice(1)}~`)],
];

const ALL_CASES = [
  ...NORMALISATION_CASES,
  ...IPV4_BOUNDARY_CASES,
  ...NUMERIC_ENCODING_CASES,
  ...IPV6_CASES,
  ...METADATA_CASES,
  ...NAME_CASES,
  ...SYNTAX_CASES,
  ...LENGTH_CASES,
];

const METADATA_IPV4 = new Set(["169.254.169.254", "100.100.100.200", "168.63.129.16"]);
const REFUSAL_REASONS: ReadonlySet<string> = new Set<RefusalReason>([
  "invalid_url",
  "scheme",
  "userinfo",
  "control_chars",
  "port",
  "too_long",
  "internal_address",
  "internal_name",
  "metadata_endpoint",
]);

describe("checkDestination table", () => {
  it("has at least 60 cases", () => {
    expect(ALL_CASES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(ALL_CASES)("%j → %j", (input, expectation) => {
    const decision = checkDestination(input);
    if (typeof expectation === "string") {
      expect(decision).toMatchObject({ ok: false, reason: expectation });
    } else {
      expect(decision).toMatchObject({ ok: true, url: expectation.url });
    }
  });
});

describe("refusal messages", () => {
  it.each([
    ["http://10.0.0.1/", "a private network address (10.0.0.0/8)"],
    ["http://100.64.0.0/", "a carrier-grade NAT address (100.64.0.0/10)"],
    ["http://192.0.2.1/", "(192.0.2.0/24)"],
    ["http://[::ffff:192.168.1.1]/", "a private network address (192.168.0.0/16) wrapped in an IPv4-mapped"],
    ["http://[2002:a00:1::]/", "wrapped in a 6to4 address (2002::/16)"],
    ["http://[::7f00:1]/", "a loopback address (127.0.0.0/8) wrapped in an IPv4-compatible"],
    ["http://[::1]/", "a loopback address (::1/128)"],
    ["http://printer.local/", '"printer.local" is a local or reserved name (.local)'],
    ["http://wiki/", "a single-label name"],
    ...["workgroup", "kube", "intra", "priv", "router", "gateway"].map((tld) => [
      `http://nas.${tld}/`,
      `"nas.${tld}" is under .${tld}, which is no top-level domain of the public internet`,
    ]),
    ["gopher://example.com/", '"gopher" scheme'],
  ])("%s explains itself", (input, phrase) => {
    const decision = checkDestination(input);
    expect(decision.ok).toBe(false);
    expect(!decision.ok && decision.message).toContain(phrase);
    expect(!decision.ok && decision.message).toMatch(/^The destination [^\n]+\.$/);
  });

  it("returns the WHATWG hostname of an accepted destination", () => {
    expect(checkDestination("HTTPS://Bücher.Example.ORG.:8443/x")).toEqual({
      ok: true,
      url: "https://xn--bcher-kva.example.org:8443/x",
      hostname: "xn--bcher-kva.example.org",
    });
    expect(checkDestination("http://[2606:4700::1111]/")).toMatchObject({ hostname: "[2606:4700::1111]" });
  });
});

describe("isInternalAddress", () => {
  it.each([
    ["8.8.8.8", false, "unicast"],
    ["2606:4700::1111", false, "unicast"],
    ["[::1]", true, "loopback"],
    ["10.9.8.7", true, "private"],
    ["::ffff:10.0.0.1", true, "private"],
    ["::ffff:8.8.8.8", true, "ipv4Mapped"],
    ["::808:808", true, "ipv4Compatible"],
    // ipaddr.js reads "::a.b.c.d" as IPv4-mapped; internal either way.
    ["::8.8.8.8", true, "ipv4Mapped"],
    ["64:ff9b::808:808", true, "rfc6052"],
    ["2002:808:808::", true, "6to4"],
    ["169.254.169.254", true, "metadata"],
    ["::ffff:169.254.169.254", true, "metadata"],
    ["168.63.129.16", true, "metadata"],
    ["not an address", true, "invalid"],
  ])("%s → internal %s (%s)", (ip, internal, range) => {
    expect(isInternalAddress(ip)).toMatchObject({ internal, range });
  });
});

describe("normaliseDestination", () => {
  it.each(["not a url", "ftp://example.com/", "http://exa\tmple.com/", "http://evil.com\\@good.com/"])(
    "throws a TypeError for %j",
    (input) => {
      expect(() => normaliseDestination(input)).toThrow(TypeError);
    },
  );

  it("keeps what the other checks refuse, so they still refuse it", () => {
    expect(normaliseDestination("HTTP://User:Pw@LOCALHOST.:0/a/../b?")).toBe("http://User:Pw@localhost:0/b");
  });
});

const PATH_CHARACTERS = [..."abcXYZ09-._~%/?#&=+;:@!$'()*,[] é€😀", "%2e", "%2E", "%7e", "%41", "%2f", "%25", "%zz", "%%"];
const urlLikeText = fc
  .tuple(
    fc.constantFrom("http://", "https://", "HTTP://", "HtTpS://"),
    fc.oneof(
      fc.domain(),
      fc.constantFrom(
        "LocalHost",
        "127.1",
        "0x7f.1",
        "[::ffff:10.0.0.1]",
        "printer.LOCAL",
        "metadata.google.internal",
        "169.254.169.254",
        "user:pw@example.com",
        "intranet",
      ),
    ),
    fc.constantFrom("", ".", "..", ":80", ":443", ":8080", ".:80", ":0"),
    fc.array(fc.constantFrom(...PATH_CHARACTERS), { maxLength: 30 }),
  )
  .map(([scheme, host, hostSuffix, path]) => `${scheme}${host}${hostSuffix}/${path.join("")}`);

const anyText = fc.oneof(
  urlLikeText,
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "binary", maxLength: 80 }).map((text) => `http://${text}`),
);

function normalisesWithoutThrowing(input: string): boolean {
  try {
    normaliseDestination(input);
    return true;
  } catch {
    return false;
  }
}

describe("destination properties", () => {
  it("normalisation is idempotent", () => {
    fc.assert(
      fc.property(anyText.filter(normalisesWithoutThrowing), (input) => {
        const once = normaliseDestination(input);
        expect(normaliseDestination(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });

  it("normalising does not change the decision", () => {
    fc.assert(
      fc.property(anyText.filter(normalisesWithoutThrowing), (input) => {
        const direct = checkDestination(input);
        const afterNormalising = checkDestination(normaliseDestination(input));
        expect(afterNormalising.ok).toBe(direct.ok);
        if (direct.ok) expect(afterNormalising).toEqual(direct);
        else expect(afterNormalising).toMatchObject({ reason: direct.reason });
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses an IPv4 literal in any encoding exactly when it is non-unicast or metadata", () => {
    fc.assert(
      fc.property(fc.ipV4Extended(), (ip) => {
        const hostname = new URL(`http://${ip}/`).hostname;
        const range = ipaddr.parse(hostname).range();
        const shouldRefuse = range !== "unicast" || METADATA_IPV4.has(hostname);
        const decision = checkDestination(`http://${ip}/path`);
        expect(decision.ok).toBe(!shouldRefuse);
        if (!decision.ok) expect(["internal_address", "metadata_endpoint"]).toContain(decision.reason);
        else expect(decision.url).toBe(`http://${hostname}/path`);
      }),
      { numRuns: 3000 },
    );
  });

  it("refuses every IPv6 literal that ipaddr.js does not call unicast", () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const decision = checkDestination(`http://[${ip}]/`);
        if (ipaddr.parse(ip).range() !== "unicast") expect(decision.ok).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("case, default-port and trailing-dot variants share one key", () => {
    fc.assert(
      fc.property(
        fc.domain(),
        fc.webPath(),
        fc.constantFrom("http", "https"),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.boolean(), { minLength: 1 }),
        (domain, path, scheme, upperScheme, explicitPort, trailingDot, caseMask) => {
          const host = [...domain]
            .map((character, index) => (caseMask[index % caseMask.length] ? character.toUpperCase() : character))
            .join("");
          const port = explicitPort ? (scheme === "http" ? ":80" : ":443") : "";
          const variant = `${upperScheme ? scheme.toUpperCase() : scheme}://${host}${trailingDot ? "." : ""}${port}${path}`;
          expect(normaliseDestination(variant)).toBe(normaliseDestination(`${scheme}://${domain}${path}`));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("never throws on arbitrary text and always gives a known reason", () => {
    fc.assert(
      fc.property(anyText, (input) => {
        const decision = checkDestination(input);
        if (decision.ok) expect(decision.url.length).toBeLessThanOrEqual(MAX_DESTINATION_LENGTH);
        else expect(REFUSAL_REASONS.has(decision.reason)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
