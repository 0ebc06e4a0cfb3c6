import { mintSessionToken } from "@/lib/auth/session-tokens";
import { hostileLogos } from "@/tests/support/hostile-logos";

/** What the uploaders met while they ran: how many uploads, answered with which status. */
export type UploadTally = { uploads: number; byStatus: Record<string, number> };

/** Uploads that go on while a scenario's slices of load run, and pause for the reference's. */
export type HostileUploads = { start(): void; pause(): Promise<void>; tally(): UploadTally };

/**
 * A session token for a new person whose workspace holds a subscription, through the server's own
 * routes, as a customer gets one: the first request makes the person and their workspace, the local
 * billing provider's checkout and its "Complete purchase" form subscribe it (the server must run
 * with BILLING_PROVIDER=local). Only a subscribed workspace's uploads reach the logo's decoding.
 */
export async function subscribedSessionToken(serverUrl: string): Promise<string> {
  const token = await mintSessionToken(`hostile-logos-${Date.now()}@bench.example`);
  const authorization = `Bearer ${token}`;
  await expectOk(await fetch(`${serverUrl}/api/workspaces`, { headers: { authorization } }), "reading the workspaces");
  const checkout = await fetch(`${serverUrl}/api/billing/checkout`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ plan: "unlimited", interval: "month" }),
  });
  await expectOk(checkout, "starting the local checkout");
  const { url } = (await checkout.json()) as { url: string };
  const completed = await fetch(`${serverUrl}${new URL(url).pathname}/complete`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "",
    redirect: "manual",
  });
  if (completed.status !== 303) throw new Error(`Completing the local checkout answered ${completed.status}.`);
  return token;
}

async function expectOk(response: Response, what: string): Promise<void> {
  if (!response.ok) throw new Error(`${what} answered ${response.status}: ${await response.text()}`);
}

/**
 * `clients` uploaders, each sending the hostile logos of an adversarial review in turn as the workspace's logo
 * (PUT /api/workspaces/logo) for as long as they run, one upload at a time each.
 */
export function hostileUploads(serverUrl: string, token: string, clients: number): HostileUploads {
  const logos = hostileLogos();
  const tally: UploadTally = { uploads: 0, byStatus: {} };
  let running: Promise<void>[] = [];
  let stopping = false;
  const uploader = async (first: number) => {
    for (let next = first; !stopping; next++) {
      const logo = logos[next % logos.length]!;
      const answer = await fetch(`${serverUrl}/api/workspaces/logo`, {
        method: "PUT",
        headers: { authorization: `Bearer ${token}`, "content-type": logo.type },
        body: new Uint8Array(logo.bytes),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          return String(response.status);
        },
        () => "no answer",
      );
      tally.uploads++;
      tally.byStatus[answer] = (tally.byStatus[answer] ?? 0) + 1;
    }
  };
  return {
    start() {
      stopping = false;
      running = Array.from({ length: clients }, (_, index) => uploader(index));
    },
    async pause() {
      stopping = true;
      await Promise.all(running);
    },
    tally: () => tally,
  };
}
