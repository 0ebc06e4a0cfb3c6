import dns2 from "dns2";

const { Packet } = dns2;
const NXDOMAIN = 3;

/** Names the test DNS server answers specially; every other name resolves to a public address. */
export const TEST_ZONE = {
  publicAddress: "93.184.215.14",
  privateName: "intranet-alias.example.net", // A 10.0.0.7
  mixedName: "mixed-answers.example.net", // A 93.184.215.14 and A 192.168.1.20
  loopbackV6Name: "loop6.example.net", // AAAA ::1
  missingName: "no-such-name.example.net", // NXDOMAIN
} as const;

type Answer = { type: number; address: string };

function answersFor(name: string, type: number): Answer[] | "nxdomain" {
  const a = (address: string) => ({ type: Packet.TYPE.A, address });
  const aaaa = (address: string) => ({ type: Packet.TYPE.AAAA, address });
  const byName: Record<string, Answer[] | "nxdomain"> = {
    [TEST_ZONE.privateName]: [a("10.0.0.7")],
    [TEST_ZONE.mixedName]: [a(TEST_ZONE.publicAddress), a("192.168.1.20")],
    [TEST_ZONE.loopbackV6Name]: [aaaa("::1")],
    [TEST_ZONE.missingName]: "nxdomain",
  };
  const answers = byName[name.toLowerCase()] ?? [a(TEST_ZONE.publicAddress)];
  return answers === "nxdomain" ? answers : answers.filter((answer) => answer.type === type);
}

/** A real DNS server on 127.0.0.1 (UDP), for tests that exercise the resolver path. */
export async function startTestDnsServer(): Promise<{ resolver: string; close(): Promise<void> }> {
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const answers = question ? answersFor(question.name, question.type) : [];
      if (answers === "nxdomain") {
        response.header.rcode = NXDOMAIN;
      } else {
        for (const answer of answers) {
          response.answers.push({ ...Packet.createResourceFromQuestion(question!, { ttl: 60 }), ...answer });
        }
      }
      send(response);
    },
  });
  const listening = new Promise<void>((resolve) => server.on("listening", () => resolve()));
  await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
  await listening;
  const { port } = server.addresses().udp!;
  return { resolver: `127.0.0.1:${port}`, close: () => server.close() };
}
