export default function HomePage() {
  return (
    <main>
      <h1>Permalink</h1>
      <p>
        Permanent short links and QR codes. A code, once issued, never stops resolving: not when you repoint it, not when a
        subscription lapses, not when you archive it. Print it on a menu, a label or a building and it keeps working for years.
      </p>
      <ul>
        <li>
          <strong>Checked live while new.</strong> Every new link starts in quarantine: it works straight away, and each visit runs
          a live safety check until the link has proven itself.
        </li>
        <li>
          <strong>No internal destinations.</strong> Links to localhost, private networks or cloud metadata endpoints are refused.
        </li>
        <li>
          <strong>Built for agents too.</strong> Programs use an API key; an agent will be able to buy a single link over HTTP 402
          (MPP or x402) without an account. Payments are coming.
        </li>
      </ul>
      <p>
        <a href="/docs">API reference</a> · <a href="/api/openapi.json">OpenAPI document</a>
      </p>
    </main>
  );
}
