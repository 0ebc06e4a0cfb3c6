import { buttonClass, cardClass, mutedClass } from "@/components/ui/styles";
import { CURRENCY, describePrice, offeredChoices, PLAN_IDS, PLANS } from "@/lib/billing/plans";
import Link from "next/link";

/** Each plan with its prices, from the one catalogue the checkout charges (lib/billing/plans.ts). */
const PLAN_CARDS = PLAN_IDS.map((plan) => ({
  plan,
  name: PLANS[plan].name,
  prices: offeredChoices()
    .filter((choice) => choice.plan === plan)
    .map(describePrice),
  cap: PLANS[plan].cap,
}));

const FEATURES = [
  {
    title: "Links that never stop resolving",
    text:
      "A code, once issued, keeps resolving: when you repoint it, archive it, or let a subscription " +
      "lapse. Print it on a menu, a label or a building.",
  },
  {
    title: "Checked live while new",
    text:
      "Every new link starts in quarantine: it works at once, and each visit runs a live safety check " +
      "until the link has proven itself. Links to private networks are refused.",
  },
  {
    title: "QR codes with your logo",
    text:
      "SVG or PNG in any size, colours with enough contrast to scan, error correction raised to carry " +
      "a centre logo, rendered by the server so what you download is what prints.",
  },
  {
    title: "Scans you can count",
    text:
      "Every visit is recorded after the response: when, from where, on which device, and whether it " +
      "came from a QR code or a click. Read it by day, country, device or referrer, in your time zone.",
  },
  {
    title: "Your own domain",
    text:
      "Serve links on a domain of yours: the dashboard shows the DNS records to set, verifies them and " +
      "keeps checking. If the records break, the owners hear about it and the links keep resolving.",
  },
  {
    title: "Teams",
    text: "Invite people by e-mail as owners, admins, members or viewers. Links belong to the workspace, not to whoever made them.",
  },
  {
    title: "An API and an MCP server for programs and agents",
    text:
      "Workspaces use an API key, over HTTP or the Model Context Protocol; an agent can buy a single " +
      "permanent link over HTTP 402 (MPP or x402) without an account.",
  },
  {
    title: "Plans in Australian dollars",
    text: "Starter and Unlimited subscriptions, monthly or yearly. Existing links keep resolving whatever happens to the subscription.",
  },
];

export default function HomePage() {
  return (
    <div className="min-h-screen">
      <header className="border-b border-zinc-200 dark:border-zinc-800">
        <nav aria-label="Site" className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-3 px-5 py-4">
          <span className="text-lg font-semibold">Permalink</span>
          <div className="flex flex-wrap items-center gap-4 text-sm">
            <Link href="/docs">API reference</Link>
            <Link href="/docs/payments">Machine payments</Link>
            <Link href="/docs/agents">Agents</Link>
            <Link href="/signin" className={buttonClass.primary + " no-underline"}>
              Sign in
            </Link>
          </div>
        </nav>
      </header>
      <main className="mx-auto max-w-5xl px-5 py-12">
        <h1 className="text-4xl font-bold tracking-tight sm:text-5xl">Permanent short links and QR codes</h1>
        <p className="mt-4 max-w-2xl text-lg text-zinc-700 dark:text-zinc-300">
          Short links that people and AI agents can trust for years: safety-checked while new, never broken later.
        </p>
        <div className="mt-6 flex flex-wrap gap-3">
          <Link href="/signin" className={buttonClass.primary + " no-underline"}>
            Sign in to the dashboard
          </Link>
          <Link href="/docs" className={buttonClass.secondary + " no-underline"}>
            Read the API reference
          </Link>
        </div>
        <ul className="mt-12 grid list-none gap-4 p-0 sm:grid-cols-2 lg:grid-cols-3">
          {FEATURES.map((feature) => (
            <li key={feature.title} className={cardClass}>
              <h2 className="m-0 text-base font-semibold">{feature.title}</h2>
              <p className={mutedClass + " mb-0"}>{feature.text}</p>
            </li>
          ))}
        </ul>
        <section aria-labelledby="plans-heading" className="mt-12">
          <h2 id="plans-heading" className="text-2xl font-bold">
            Plans
          </h2>
          <p className={mutedClass}>
            Prices in Australian dollars ({CURRENCY}). Every plan includes custom domains, scan analytics and teammates, and every
            link keeps resolving whatever happens to the subscription.
          </p>
          <ul className="grid list-none gap-4 p-0 sm:grid-cols-2">
            {PLAN_CARDS.map((card) => (
              <li key={card.plan} className={cardClass} data-testid={`plan-${card.plan}`}>
                <h3 className="m-0 text-lg font-semibold">{card.name}</h3>
                <p className="mb-1 mt-2 text-xl font-bold">{card.prices.join(" or ")}</p>
                <p className={mutedClass + " m-0"}>
                  {card.cap === null ? "No limit on new links." : `${card.cap} new links each billing cycle.`}
                </p>
              </li>
            ))}
          </ul>
          <Link href="/signin" className={buttonClass.primary + " no-underline"}>
            Sign in to subscribe
          </Link>
        </section>
        <p className={mutedClass + " mt-10"}>
          Programs: <Link href="/docs">API reference</Link> · <a href="/api/openapi.json">OpenAPI document</a> ·{" "}
          <Link href="/docs/payments">buying a link with a machine payment</Link>
        </p>
      </main>
    </div>
  );
}
