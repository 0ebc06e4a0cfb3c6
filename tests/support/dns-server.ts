import { startFakeDnsServer, type FakeDnsServer } from "./fake-dns-server";

/** Names the suite's DNS server answers specially; every other name resolves to a public address. */
export const TEST_ZONE = {
  publicAddress: "93.184.215.14",
  privateName: "intranet-alias.example.net", // A 10.0.0.7
  mixedName: "mixed-answers.example.net", // A 93.184.215.14 and A 192.168.1.20
  loopbackV6Name: "loop6.example.net", // AAAA ::1
  missingName: "no-such-name.example.net", // NXDOMAIN
} as const;

/** The DNS server every destination lookup of the suite (and the benchmark) goes to. */
export function startTestDnsServer(): Promise<FakeDnsServer> {
  return startFakeDnsServer(
    {
      [TEST_ZONE.privateName]: { a: ["10.0.0.7"] },
      [TEST_ZONE.mixedName]: { a: [TEST_ZONE.publicAddress, "192.168.1.20"] },
      [TEST_ZONE.loopbackV6Name]: { aaaa: ["::1"] },
      [TEST_ZONE.missingName]: "nxdomain",
    },
    { a: [TEST_ZONE.publicAddress] },
  );
}
