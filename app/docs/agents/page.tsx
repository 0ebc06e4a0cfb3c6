import { Table } from "@/components/table";
import { CodeBlock } from "@/components/ui/code-block";
import { config } from "@/lib/config";
import { TOOLS } from "@/lib/mcp/toolset";
import type { Metadata } from "next";

// The addresses and the price come from runtime configuration, not the build's.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Agents and MCP — Permalink" };

export default function AgentsPage() {
  const settings = config();
  const base = settings.BASE_URL;
  const endpoint = `${base}/api/mcp`;
  return (
    <main>
      <h1>Agents: the MCP server</h1>
      <p>
        Everything the API does for links, their QR codes and analytics, and the list of the workspace&apos;s custom domains, is
        also a set of <a href="https://modelcontextprotocol.io">Model Context Protocol</a> tools at <code>{endpoint}</code>{" "}
        (Streamable HTTP, stateless: no session to keep). The tools run the same checks as the HTTP operations, in the same order,
        and fail with the same sentences, as tool results marked <code>isError</code>. An agent without an account can buy a
        permanent link with one tool call and a machine payment.
      </p>
      <Connect endpoint={endpoint} prefix={settings.API_KEY_PREFIX} />
      <Tools />
      <Buy
        endpoint={endpoint}
        price={settings.LINK_PRICE}
        assetName={settings.PAYMENT_ASSET_NAME}
        assetVersion={settings.PAYMENT_ASSET_VERSION}
        network={settings.PAYMENT_NETWORK}
        takesPayments={Boolean(settings.PAYMENT_RECIPIENT && settings.MPP_SECRET_KEY)}
      />
    </main>
  );
}

function Connect({ endpoint, prefix }: { endpoint: string; prefix: string }) {
  const desktop = JSON.stringify(
    { mcpServers: { permalink: { type: "http", url: endpoint, headers: { Authorization: `Bearer \${PERMALINK_API_KEY}` } } } },
    null,
    2,
  );
  const bridge = JSON.stringify(
    {
      mcpServers: {
        permalink: {
          command: "npx",
          args: ["-y", "mcp-remote", endpoint, "--header", "Authorization:Bearer ${PERMALINK_API_KEY}"],
          env: { PERMALINK_API_KEY: `${prefix}_…` },
        },
      },
    },
    null,
    2,
  );
  const sdk = [
    `// npm i @modelcontextprotocol/sdk`,
    `import { Client } from "@modelcontextprotocol/sdk/client/index.js";`,
    `import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";`,
    ``,
    `const transport = new StreamableHTTPClientTransport(new URL("${endpoint}"), {`,
    `  requestInit: { headers: { Authorization: \`Bearer \${process.env.PERMALINK_API_KEY}\` } },`,
    `});`,
    `const client = new Client({ name: "my-agent", version: "1.0.0" });`,
    `await client.connect(transport);`,
    `const { structuredContent: link } = await client.callTool({ name: "create_link", arguments: { ` +
      `destination: "https://example.com/menu" } });`,
  ].join("\n");
  return (
    <section>
      <h2 id="connect">Connect</h2>
      <p>
        The credential is the API&apos;s: <code>Authorization: Bearer &lt;API key&gt;</code> (<code>{prefix}_…</code>, minted with{" "}
        <code>POST /api/billing/claim</code> or returned by a first purchase) or a dashboard session token, with{" "}
        <code>X-Workspace-Id</code> to pick a workspace. A credential that is sent but not valid is refused with 401 before any
        tool runs. Without any credential you can connect, list the tools and call <code>buy_link</code>; the other tools answer
        with an error that says how to authenticate.
      </p>
      <p>
        Clients that speak Streamable HTTP with headers (Claude Code&apos;s and Cursor&apos;s <code>.mcp.json</code>, VS
        Code&apos;s <code>mcp.json</code> under <code>servers</code>):
      </p>
      <CodeBlock>{desktop}</CodeBlock>
      <p>
        Clients that start local servers only (Claude Desktop), through the <code>mcp-remote</code> bridge:
      </p>
      <CodeBlock>{bridge}</CodeBlock>
      <p>From code, with the TypeScript SDK:</p>
      <CodeBlock>{sdk}</CodeBlock>
    </section>
  );
}

function Tools() {
  const rows = TOOLS.map((tool) => ({
    key: tool.name,
    cells: [<code key="name">{tool.name}</code>, tool.anyone ? "none" : "Bearer", tool.description],
  }));
  return (
    <section>
      <h2 id="tools">Tools</h2>
      <p>
        Each tool&apos;s input and output schemas are the JSON Schemas of the HTTP operation it mirrors (see{" "}
        <a href="/docs">the API reference</a>); <code>tools/list</code> gives them. Write tools spend the workspace&apos;s write
        budget, shared with the HTTP API.
      </p>
      <Table headings={["Tool", "Credential", "What it does"]} rows={rows} />
    </section>
  );
}

type BuyTerms = {
  endpoint: string;
  price: string;
  assetName: string;
  assetVersion: string;
  network: string;
  takesPayments: boolean;
};

function Buy({ endpoint, price, assetName, assetVersion, network, takesPayments }: BuyTerms) {
  const mpp = [
    `// npm i @modelcontextprotocol/sdk mppx viem`,
    `import { Client } from "@modelcontextprotocol/sdk/client/index.js";`,
    `import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";`,
    `import { evm } from "mppx/client";`,
    `import { McpClient } from "mppx/mcp-sdk/client";`,
    `import { privateKeyToAccount } from "viem/accounts";`,
    ``,
    `const client = new Client({ name: "my-agent", version: "1.0.0" });`,
    `await client.connect(new StreamableHTTPClientTransport(new URL("${endpoint}"))); // no credentials`,
    `const account = privateKeyToAccount(process.env.WALLET_KEY);`,
    `McpClient.wrap(client, { methods: [evm({ account, authorization: { name: "${assetName}", version: "${assetVersion}" } })] });`,
    ``,
    `// The first call gets the challenge, mppx pays it and calls again.`,
    `const result = await client.callTool({ name: "buy_link", arguments: { destination: "https://example.com/menu" } });`,
    `const link = result.structuredContent; // { id, slug, short_url, receipt, api_key? }; result.receipt: the MPP receipt`,
  ].join("\n");
  const x402 = [
    `// npm i @x402/core @x402/evm viem`,
    `import { x402Client } from "@x402/core/client";`,
    `import { ExactEvmScheme } from "@x402/evm/exact/client";`,
    ``,
    `const payments = new x402Client().register("eip155:*", new ExactEvmScheme(account));`,
    `const args = { destination: "https://example.com/menu" };`,
    `const first = await client.callTool({ name: "buy_link", arguments: args });`,
    `const required = JSON.parse(first.content[0].text)["x402/error"].data; // the PaymentRequired`,
    `const payment = await payments.createPaymentPayload(required);`,
    `const paid = await client.callTool({ name: "buy_link", arguments: args, _meta: { "x402/payment": payment } });`,
    `// paid.structuredContent: the PaidLink; paid._meta["x402/payment-response"]: the settlement`,
  ].join("\n");
  return (
    <section>
      <h2 id="buy">Buy a link without an account</h2>
      {!takesPayments && (
        <p>
          <strong>This deployment does not take machine payments</strong>, so <code>buy_link</code> answers that it cannot; use an
          API key instead.
        </p>
      )}
      <ol>
        <li>
          Call <code>buy_link</code> with the arguments of <code>POST /api/links</code> (<code>destination</code>, optional{" "}
          <code>slug</code>) and no credentials. Everything that could refuse the link (a malformed destination, a taken slug, a
          destination that fails the safety check) is refused now, before any payment is asked for.
        </li>
        <li>
          The answer is an error result that carries both challenges, one per protocol, for {price} {assetName} on{" "}
          <code>{network}</code>: MPP&apos;s under <code>_meta[&quot;org.paymentauth/payment-required&quot;]</code>, and
          x402&apos;s <code>PaymentRequired</code> in the first text, wrapped as{" "}
          <code>{'{"x402/error": {"code": 402, "message", "data"}}'}</code>. The second text is the API&apos;s PaymentRequired
          body, for people.
        </li>
        <li>
          Pay either one and call <code>buy_link</code> again with the same arguments and the payment in <code>_meta</code>: an
          MPP credential under <code>org.paymentauth/credential</code>, or an x402 payload under <code>x402/payment</code>.
        </li>
        <li>
          The result is the <code>PaidLink</code>, with <code>api_key</code> on your wallet&apos;s first purchase: store it and
          connect with it as the Bearer credential to list and repoint the links your wallet bought. One payment buys exactly one
          link: sending it again (here or to <code>POST /api/links</code>) answers the same link and charges nothing more.
        </li>
      </ol>
      <h3 id="buy-mpp">With mppx (MPP)</h3>
      <CodeBlock>{mpp}</CodeBlock>
      <h3 id="buy-x402">With x402</h3>
      <CodeBlock>{x402}</CodeBlock>
      <p>
        The same purchase over plain HTTP, and how to rotate or recover the key: <a href="/docs/payments">machine payments</a>.
      </p>
    </section>
  );
}
