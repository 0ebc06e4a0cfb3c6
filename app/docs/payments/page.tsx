import { Table } from "@/components/table";
import { CodeBlock } from "@/components/ui/code-block";
import { config } from "@/lib/config";
import { CHALLENGE_LIFETIME_SECONDS } from "@/lib/payments/gateway";
import type { Metadata } from "next";

// Price, network and addresses come from runtime configuration, not the build's.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Machine payments — Permalink" };

export default function PaymentsPage() {
  const settings = config();
  const base = settings.BASE_URL;
  const terms = {
    base,
    price: settings.LINK_PRICE,
    asset: settings.PAYMENT_ASSET,
    assetName: settings.PAYMENT_ASSET_NAME,
    assetVersion: settings.PAYMENT_ASSET_VERSION,
    network: settings.PAYMENT_NETWORK,
    chainId: Number(settings.PAYMENT_NETWORK.split(":")[1]),
  };
  return (
    <main>
      <h1>Machine payments: buy one permanent link, no account</h1>
      <p>
        An agent (or anyone with a wallet) can buy one permanent short link for{" "}
        <strong>
          {terms.price} {terms.assetName}
        </strong>{" "}
        on <code>{terms.network}</code> (token <code>{terms.asset}</code>) by answering an HTTP 402 challenge on{" "}
        <code>POST {base}/api/links</code>. Two protocols work, on the same endpoint and the same challenge: <strong>MPP</strong>{" "}
        (the <code>Payment</code> HTTP authentication scheme) and <strong>x402</strong> version 2. Both pay with one EIP-3009{" "}
        <code>TransferWithAuthorization</code> signature; nothing is charged until the link can be made.
      </p>
      {!settings.PAYMENT_RECIPIENT && (
        <p>
          <strong>This deployment does not take machine payments</strong> (no recipient is configured), so the challenge below is
          answered with 503 here; use an API key instead.
        </p>
      )}
      <p>
        The code never stops resolving, like every code of this service; the first link a wallet buys also returns an API key for
        its machine account, which lists and repoints the links that wallet bought. The whole API is described in{" "}
        <a href="/docs">the reference</a> and in <a href="/api/openapi.json">OpenAPI</a> (the operation carries{" "}
        <code>x-payment</code>); agents start from <a href="/llms.txt">/llms.txt</a>.
      </p>
      <Steps base={base} />
      <MppExample {...terms} />
      <X402Example {...terms} />
      <KeyManagement {...terms} />
      <Rules />
    </main>
  );
}

function Steps({ base }: { base: string }) {
  const ask = [
    `curl -i -X POST ${base}/api/links \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"destination": "https://example.com/spring-menu", "slug": "spring-menu"}'`,
  ].join("\n");
  const challenge = [
    "HTTP/1.1 402 Payment Required",
    "Cache-Control: no-store",
    'WWW-Authenticate: Payment id="…", realm="…", method="evm", intent="charge", request="…", ' +
      'expires="…", opaque="…", description="One permanent short link"',
    "PAYMENT-REQUIRED: eyJ4NDAyVmVyc2lvbiI6Mi…",
    "",
    '{"error": "Payment required: … Existing links keep resolving.", "price": "…", "currency": "…", "pay": ["mpp", "x402"], "docs": "…"}',
  ].join("\n");
  return (
    <section>
      <h2 id="steps">Step by step</h2>
      <ol>
        <li>
          <p>
            Send the request you want, without credentials. The body is checked first: a malformed body (400), a custom slug that
            is taken (409) or a destination that fails the safety check (422) is refused before any challenge, so you never pay
            for a request that cannot succeed. (<code>domain_id</code> needs an account.)
          </p>
          <CodeBlock>{ask}</CodeBlock>
        </li>
        <li>
          <p>You get 402 with two challenges, one per protocol, and a JSON body for people:</p>
          <CodeBlock>{challenge}</CodeBlock>
          <p>
            The MPP <code>request</code> names the amount (atomic units), the token, the recipient and the chain; the challenge id
            is an HMAC over them and over <code>opaque</code>, which binds the destination (a hash) and the slug. It{" "}
            <code>expires</code> within {CHALLENGE_LIFETIME_SECONDS / 60} minutes. <code>PAYMENT-REQUIRED</code> (base64 JSON)
            offers the same payment as x402 <code>exact</code> requirements with <code>maxTimeoutSeconds</code> of{" "}
            {CHALLENGE_LIFETIME_SECONDS}.
          </p>
        </li>
        <li>
          <p>
            Sign an EIP-3009 <code>TransferWithAuthorization</code> for exactly that amount to that recipient, and send the same
            request again with <code>Authorization: Payment &lt;credential&gt;</code> (MPP) or <code>PAYMENT-SIGNATURE</code>{" "}
            (x402; the x402 payload is also accepted in <code>Authorization: Payment</code>). The service settles the payment
            first, then creates the link.
          </p>
        </li>
        <li>
          <p>
            You get <strong>201</strong> with a <code>PaidLink</code>: the link (<code>id</code>, <code>slug</code>,{" "}
            <code>destination</code>, <code>host</code>, <code>status</code>, <code>short_url</code>…), <code>receipt</code> (the
            settlement transaction) and, on your wallet&apos;s first purchase, <code>api_key</code>. It is shown once: store it.
            The <code>Payment-Receipt</code> header (and <code>PAYMENT-RESPONSE</code> for x402) carries the same reference.
          </p>
        </li>
        <li>
          <p>
            Later, with <code>Authorization: Bearer &lt;api_key&gt;</code>: <code>GET /api/links</code> lists the links your
            wallet bought and <code>PATCH /api/links/{"{id}"}</code> with <code>{'{"destination": "…"}'}</code> repoints one.
            Buying again with the same wallet adds the link to the same account (no new key).
          </p>
        </li>
      </ol>
    </section>
  );
}

type Terms = {
  base: string;
  price: string;
  asset: string;
  assetName: string;
  assetVersion: string;
  network: string;
  chainId: number;
};

function MppExample({ base, asset, assetName, assetVersion, price }: Terms) {
  const code = [
    `// npm i mppx viem`,
    `import { Mppx, evm } from "mppx/client";`,
    `import { privateKeyToAccount } from "viem/accounts";`,
    ``,
    `const account = privateKeyToAccount(process.env.WALLET_KEY);`,
    `const mppx = Mppx.create({`,
    `  methods: [evm({ account, authorization: { name: "${assetName}", version: "${assetVersion}" }, maxAmount: "${price}" })],`,
    `  polyfill: false,`,
    `});`,
    ``,
    `// mppx answers the 402 (Authorization: Payment …) and returns the paid response.`,
    `const response = await mppx.fetch("${base}/api/links", {`,
    `  method: "POST",`,
    `  headers: { "Content-Type": "application/json" },`,
    `  body: JSON.stringify({ destination: "https://example.com/spring-menu" }),`,
    `});`,
    `const link = await response.json(); // 201: { id, slug, short_url, receipt, api_key? }`,
  ].join("\n");
  return (
    <section>
      <h2 id="mpp">Example: MPP</h2>
      <p>
        With the <code>mppx</code> client and its <code>evm</code> charge method (token <code>{asset}</code>, EIP-712 domain{" "}
        <code>
          {assetName} / {assetVersion}
        </code>
        ):
      </p>
      <CodeBlock>{code}</CodeBlock>
    </section>
  );
}

function X402Example({ base }: Terms) {
  const code = [
    `// npm i @x402/fetch @x402/evm viem`,
    `import { ExactEvmScheme } from "@x402/evm/exact/client";`,
    `import { wrapFetchWithPayment, x402Client } from "@x402/fetch";`,
    `import { privateKeyToAccount } from "viem/accounts";`,
    ``,
    `const account = privateKeyToAccount(process.env.WALLET_KEY);`,
    `const client = new x402Client().register("eip155:*", new ExactEvmScheme(account));`,
    `const fetchWithPayment = wrapFetchWithPayment(fetch, client);`,
    ``,
    `// Reads PAYMENT-REQUIRED, signs, retries with PAYMENT-SIGNATURE.`,
    `const response = await fetchWithPayment("${base}/api/links", {`,
    `  method: "POST",`,
    `  headers: { "Content-Type": "application/json" },`,
    `  body: JSON.stringify({ destination: "https://example.com/spring-menu", slug: "spring-menu" }),`,
    `});`,
    `const link = await response.json(); // 201 PaidLink; PAYMENT-RESPONSE header: { success, transaction, payer }`,
  ].join("\n");
  return (
    <section>
      <h2 id="x402">Example: x402</h2>
      <p>
        With <code>@x402/fetch</code> and the <code>exact</code> EVM scheme:
      </p>
      <CodeBlock>{code}</CodeBlock>
    </section>
  );
}

function KeyManagement({ base, network, chainId }: Terms) {
  const rotate = [
    `curl -s -X POST ${base}/api/keys/rotate -H "Authorization: Bearer $API_KEY"`,
    `# 200 {"api_key": "…"}: the new key, shown once; the old one is refused (401) from now on`,
  ].join("\n");
  const recover = [
    `// npm i viem`,
    `import { privateKeyToAccount } from "viem/accounts";`,
    `import { createSiweMessage } from "viem/siwe";`,
    ``,
    `const account = privateKeyToAccount(process.env.WALLET_KEY); // the wallet that paid`,
    `const fields = await (await fetch("${base}/api/machine-accounts/nonce")).json();`,
    `// { nonce, expires_at, domain, uri, chain_id: ${chainId}, version: "1" }`,
    `const message = createSiweMessage({`,
    `  address: account.address,`,
    `  domain: fields.domain,`,
    `  uri: fields.uri,`,
    `  chainId: fields.chain_id,`,
    `  version: fields.version,`,
    `  nonce: fields.nonce,`,
    `  issuedAt: new Date(),`,
    `  statement: "Replace my machine account's API key.",`,
    `});`,
    `const signature = await account.signMessage({ message });`,
    `const response = await fetch("${base}/api/machine-accounts/key", {`,
    `  method: "POST",`,
    `  headers: { "Content-Type": "application/json" },`,
    `  body: JSON.stringify({ message, signature }),`,
    `});`,
    `const { api_key } = await response.json(); // 200: the new key, shown once; the old key stops working`,
  ].join("\n");
  return (
    <section>
      <h2 id="keys">Your API key: rotate it, or recover it with your wallet</h2>
      <p>
        A machine account has no members and no password: its API key is its only credential. Replace it whenever you like by
        sending <code>POST /api/keys/rotate</code> with the key itself (this works for every workspace&apos;s key). The new key is
        shown once and the old one stops working at once; of two rotations sent at once with one key, one succeeds and the other
        gets 401.
      </p>
      <CodeBlock>{rotate}</CodeBlock>
      <p>
        Lost the key? Prove you hold the wallet that paid, with a Sign-In-with-Ethereum message (EIP-4361). Get a nonce from{" "}
        <code>GET /api/machine-accounts/nonce</code> (single use, valid for ten minutes), sign a message carrying it with{" "}
        <code>personal_sign</code>, and send both to <code>POST /api/machine-accounts/key</code>. The message must name this
        service (domain <code>{new URL(base).host}</code>, a URI on <code>{new URL(base).origin}</code>) and the payment
        network&apos;s chain ({network}, chain ID {chainId}). The account&apos;s key is replaced: the new one is returned once and
        the old one stops working at once.
      </p>
      <CodeBlock>{recover}</CodeBlock>
      <Table
        headings={["Answer", "When"]}
        rows={RECOVERY_REFUSALS.map(([answer, when]) => ({ key: answer, cells: [answer, when] }))}
      />
      <p>
        The signature is checked by recovering the signing address (an externally owned account, as for the payment itself);
        smart-contract wallets cannot recover a key this way. Both requests count against the write budget of your address (429
        when spent).
      </p>
    </section>
  );
}

const RECOVERY_REFUSALS: [string, string][] = [
  ["400", "The body or the message is malformed, or the message names another domain, URI origin or chain, or is not valid yet."],
  ["401", "The signature is not the message's address's, or the nonce was not issued here or was already used."],
  ["404", "No machine account belongs to that address on this network: it has never bought a link here."],
  ["410", "The message's Expiration Time or the nonce's ten minutes have passed: get a new nonce and sign again."],
];

const REFUSALS: [string, string][] = [
  ["400 / 409 / 422", "The request itself cannot succeed; decided before any challenge, nothing is charged."],
  [
    "402 with a fresh challenge",
    "No credentials; or a credential that cannot pay for this request. The error says why: made for " +
      "another destination, slug, price, token, recipient or network; expired; not issued by this " +
      "server; a signature that is not the payer's; not enough balance; malformed.",
  ],
  ["409 with Retry-After", "The same credential is still being settled by an earlier request; send it again in a moment."],
  ["503", "This deployment does not take machine payments."],
];

function Rules() {
  return (
    <section>
      <h2 id="rules">Rules</h2>
      <ul>
        <li>
          <strong>One payment buys exactly one link.</strong> Sending the same credential again (say, after a lost response)
          returns the same 201 with the same receipt, and the <code>api_key</code> for an hour unless the key has been used or
          replaced meanwhile (its first use ends the replay); it never charges again. Sent for another request, it is refused. Two
          copies sent at once give one link and one settlement.
        </li>
        <li>
          If the custom slug is taken by someone else while your payment settles, you still get your link, on an allocated slug,
          and the 201 carries a <code>notice</code> saying so.
        </li>
        <li>
          The payer is the wallet that signed (<code>did:pkh:eip155:&lt;chain&gt;:&lt;address&gt;</code>); its machine account
          owns the links it buys. Editing them needs no subscription.
        </li>
        <li>New links start in quarantine (status 1): they resolve normally while each visit runs a live safety check.</li>
        <li>Existing links keep resolving whatever happens to a payment.</li>
      </ul>
      <Table headings={["Answer", "When"]} rows={REFUSALS.map(([answer, when]) => ({ key: answer, cells: [answer, when] }))} />
    </section>
  );
}
