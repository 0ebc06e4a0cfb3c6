"use client";

import { Button } from "@/components/ui/button";
import { Field, SelectField, TextField } from "@/components/ui/field";
import { errorClass, mutedClass, noticeClass } from "@/components/ui/styles";
import { inCustomerWords } from "@/lib/api/customer-words";
import { csvTable } from "@/lib/http/csv";
import type { ImportFormat, ImportView } from "@/lib/imports/schemas";
import Link from "next/link";
import { type ReactNode, useEffect, useState } from "react";

/** The formats in the customer's words; auto reads the columns. */
const FORMAT_NAMES: Record<ImportFormat, string> = {
  auto: "Detect from the columns",
  bitly: "Bitly",
  dub: "Dub",
  rebrandly: "Rebrandly",
  shortio: "Short.io",
  shlink: "Shlink",
  kutt: "Kutt",
  generic: "Another service (any file with a destination column)",
};

/** How often the page asks how far the import has got. */
const FOLLOW_INTERVAL_MS = 1000;
/** Rows of the error table shown on the page; the download holds every one. */
const SHOWN_ERRORS = 100;

type Props = {
  domains: { id: string; hostname: string }[];
  /** The workspace may create links now (a subscription): the check works without one, the import does not. */
  canImport: boolean;
};

/**
 * Upload, check (a dry run: every row validated, nothing written), then import the same file; each
 * job is followed until it is done. The file goes to the dashboard's door of POST /api/imports.
 */
export function ImportForm({ domains, canImport }: Props) {
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<ImportFormat>("auto");
  const [domainId, setDomainId] = useState("");
  const flow = useCheckThenImport((dryRun) =>
    file ? upload(file, { format, domainId, dryRun }) : "Choose the file your old service exported first.",
  );
  /** Any change of file or option asks for a new check. */
  const { changed, send } = flow;

  return (
    <div className="space-y-5">
      <form
        className="grid gap-4 md:grid-cols-3 md:items-start"
        onSubmit={(event) => {
          event.preventDefault();
          void send(true);
        }}
      >
        <TextField
          id="import-file"
          label="Exported file (CSV or JSON)"
          type="file"
          accept=".csv,.json,text/csv,application/json"
          required
          onChange={(event) => {
            setFile(event.target.files?.[0] ?? null);
            changed();
          }}
        />
        <SelectField
          id="import-format"
          label="Exported from"
          value={format}
          onChange={(event) => {
            setFormat(event.target.value as ImportFormat);
            changed();
          }}
        >
          {Object.entries(FORMAT_NAMES).map(([value, name]) => (
            <option key={value} value={value}>
              {name}
            </option>
          ))}
        </SelectField>
        <SelectField
          id="import-domain"
          label="Keep the codes on"
          help={
            domains.length === 0
              ? "No custom domain is verified yet: every link gets a new code on the default short domain."
              : "A link on a domain verified here keeps its exact code there; choose a domain to keep every code on it."
          }
          value={domainId}
          onChange={(event) => {
            setDomainId(event.target.value);
            changed();
          }}
        >
          <option value="">Each link&apos;s own domain, when it is verified here</option>
          {domains.map((domain) => (
            <option key={domain.id} value={domain.id}>
              {domain.hostname}
            </option>
          ))}
        </SelectField>
        <CheckThenImportButtons flow={flow} canImport={canImport} checkLabel="Check the file" sendingLabel="Sending…" />
      </form>
      <ImportJobs flow={flow} />
    </div>
  );
}

/** A check, then an import of the same thing: each job followed, a refusal's sentence shown. */
type CheckThenImport = {
  check: ImportView | null;
  run: ImportView | null;
  refusal: string | null;
  sending: boolean;
  setCheck(job: ImportView): void;
  setRun(job: ImportView): void;
  /** Any change of what is imported asks for a new check. */
  changed(): void;
  send(dryRun: boolean): Promise<void>;
};

/** `start` starts the job (a dry run or the import), or says in a sentence why it cannot. */
function useCheckThenImport(start: (dryRun: boolean) => Promise<ImportView | string> | string): CheckThenImport {
  const [check, setCheck] = useState<ImportView | null>(null);
  const [run, setRun] = useState<ImportView | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  return {
    check,
    run,
    refusal,
    sending,
    setCheck,
    setRun,
    changed() {
      setCheck(null);
      setRun(null);
      setRefusal(null);
    },
    async send(dryRun) {
      setRefusal(null);
      setSending(true);
      try {
        const job = await start(dryRun);
        if (typeof job === "string") setRefusal(job);
        else if (dryRun) setCheck(job);
        else setRun(job);
      } finally {
        setSending(false);
      }
    },
  };
}

/** The form's buttons (check; then import what the check counted), and why it cannot import yet. */
function CheckThenImportButtons({
  flow,
  canImport,
  checkLabel,
  sendingLabel,
}: {
  flow: CheckThenImport;
  canImport: boolean;
  checkLabel: string;
  sendingLabel: string;
}) {
  const { check, run, sending, refusal } = flow;
  const checked = check?.status === "done";
  return (
    <>
      <div className="flex flex-wrap gap-3 md:col-span-3">
        <Button type="submit" variant="primary" disabled={sending}>
          {sending && !checked ? sendingLabel : checkLabel}
        </Button>
        {checked && (
          <Button
            variant="primary"
            disabled={
              sending ||
              !canImport ||
              check.created === 0 ||
              (run !== null && run.status !== "failed" && run.status !== "cancelled")
            }
            onClick={() => void flow.send(false)}
          >
            Import {check.created.toLocaleString("en-AU")} {check.created === 1 ? "link" : "links"}
          </Button>
        )}
      </div>
      {checked && !canImport && (
        <p className={mutedClass + " m-0 md:col-span-3"}>
          Importing creates links, which needs an active subscription: choose a plan in{" "}
          <Link href="/dashboard/billing">Billing</Link>.
        </p>
      )}
      {refusal && (
        <p role="alert" className={errorClass + " m-0 md:col-span-3"}>
          {refusal}
        </p>
      )}
    </>
  );
}

function ImportJobs({ flow }: { flow: CheckThenImport }) {
  return (
    <>
      {flow.check && <FollowedImport key={flow.check.id} initial={flow.check} onUpdate={flow.setCheck} />}
      {flow.run && <FollowedImport key={flow.run.id} initial={flow.run} onUpdate={flow.setRun} />}
    </>
  );
}

/** Sends the file; the job as it started, or the refusal's sentence. */
function upload(file: File, options: { format: ImportFormat; domainId: string; dryRun: boolean }): Promise<ImportView | string> {
  const query = new URLSearchParams({ format: options.format, dry_run: options.dryRun ? "1" : "0" });
  if (options.domainId) query.set("domain_id", options.domainId);
  const json = file.type === "application/json" || file.name.toLowerCase().endsWith(".json");
  return startJob(query, json ? "application/json" : "text/csv", file, "The file could not be sent");
}

/** POST to the dashboard's door of /api/imports; the job as it started, or the refusal's sentence. */
async function startJob(query: URLSearchParams, type: string, body: BodyInit, notSent: string): Promise<ImportView | string> {
  try {
    const response = await fetch(`/dashboard/imports/upload?${query}`, {
      method: "POST",
      headers: { "Content-Type": type },
      body,
    });
    const answer = (await response.json()) as ImportView | { error: string };
    return "error" in answer ? inCustomerWords(answer.error) : answer;
  } catch {
    return `${notSent}: check your connection and try again.`;
  }
}

type Peer = "dub" | "rebrandly" | "shortio";

/** Where each service shows the key, in its own words. */
const PEERS: Record<Peer, { name: string; where: string }> = {
  dub: { name: "Dub", where: "In Dub, open your workspace's Settings, then API Keys, and create a key that may read links." },
  rebrandly: { name: "Rebrandly", where: "In Rebrandly, open your account's API keys page and create a key (or copy one)." },
  shortio: { name: "Short.io", where: "In Short.io, open Integrations & API and copy the secret API key." },
};

/**
 * Bring links straight from Dub, Rebrandly or Short.io with an API key: check first (nothing is
 * written), then import. The key goes to the dashboard's door of POST /api/imports as
 * {source, token}; the page forgets it once the import has started, and the service keeps it
 * sealed only until the last page is read.
 */
export function PeerImportForm({ canImport }: { canImport: boolean }) {
  const [peer, setPeer] = useState<Peer>("dub");
  const [key, setKey] = useState("");
  const [workspace, setWorkspace] = useState("");
  const [domain, setDomain] = useState("");
  const flow = useCheckThenImport(async (dryRun) => {
    if (!key.trim()) return `Paste your ${PEERS[peer].name} API key first.`;
    const body = {
      source: peer,
      token: key.trim(),
      ...(peer === "rebrandly" && workspace.trim() && { workspace: workspace.trim() }),
      ...(peer === "shortio" && domain.trim() && { domain: domain.trim() }),
    };
    const query = new URLSearchParams({ dry_run: dryRun ? "1" : "0" });
    const job = await startJob(query, "application/json", JSON.stringify(body), "The key could not be sent");
    // The page forgets the key once the import has started.
    if (!dryRun && typeof job !== "string") setKey("");
    return job;
  });
  const { changed, send } = flow;

  return (
    <div className="space-y-5">
      <form
        className="grid gap-4 md:grid-cols-3 md:items-start"
        autoComplete="off"
        onSubmit={(event) => {
          event.preventDefault();
          void send(true);
        }}
      >
        <SelectField
          id="peer-import-service"
          label="Your links are at"
          value={peer}
          onChange={(event) => {
            setPeer(event.target.value as Peer);
            changed();
          }}
        >
          {Object.entries(PEERS).map(([value, { name }]) => (
            <option key={value} value={value}>
              {name}
            </option>
          ))}
        </SelectField>
        <TextField
          id="peer-import-key"
          label={`${PEERS[peer].name} API key`}
          className="md:col-span-2"
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          value={key}
          help={`${PEERS[peer].where} We use it only to read your links, keep it locked away until they are all read, then forget it.`}
          onChange={(event) => {
            setKey(event.target.value);
            changed();
          }}
        />
        {peer === "rebrandly" && (
          <TextField
            id="peer-import-workspace"
            label="Rebrandly workspace ID (optional)"
            className="md:col-span-3"
            value={workspace}
            help="Leave it empty to bring the links of your main workspace."
            onChange={(event) => {
              setWorkspace(event.target.value);
              changed();
            }}
          />
        )}
        {peer === "shortio" && (
          <TextField
            id="peer-import-domain"
            label="Only this Short.io domain (optional)"
            className="md:col-span-3"
            placeholder="go.example.com"
            value={domain}
            help="Leave it empty to bring the links of every domain in your account."
            onChange={(event) => {
              setDomain(event.target.value);
              changed();
            }}
          />
        )}
        <CheckThenImportButtons
          flow={flow}
          canImport={canImport}
          checkLabel="Check my links"
          sendingLabel="Reading your links…"
        />
      </form>
      <ImportJobs flow={flow} />
    </div>
  );
}

/**
 * An import as it goes: asked for again every second until it is done, failed or cancelled;
 * `onUpdate` hears each new state. Whoever may import may cancel one under way (`canCancel`).
 */
export function FollowedImport({
  initial,
  onUpdate,
  canCancel = true,
}: {
  initial: ImportView;
  onUpdate?: (job: ImportView) => void;
  canCancel?: boolean;
}) {
  const [job, setJob] = useState(initial);
  const [lost, setLost] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const finished = job.status === "done" || job.status === "failed" || job.status === "cancelled";

  async function cancel() {
    setCancelling(true);
    setRefusal(null);
    try {
      const response = await fetch(`/dashboard/imports/${job.id}/cancel`, { method: "POST" });
      const answer = (await response.json()) as ImportView | { error: string };
      if ("error" in answer) setRefusal(inCustomerWords(answer.error));
      else {
        setJob(answer);
        onUpdate?.(answer);
      }
    } catch {
      setRefusal("The import could not be cancelled: check your connection and try again.");
    } finally {
      setCancelling(false);
    }
  }

  useEffect(() => {
    if (finished) return;
    const timer = setTimeout(async () => {
      try {
        const response = await fetch(`/dashboard/imports/${job.id}`, { cache: "no-store" });
        if (!response.ok) throw new Error(String(response.status));
        const next = (await response.json()) as ImportView;
        setJob(next);
        onUpdate?.(next);
        setLost(false);
      } catch {
        // Asked again at the next tick; the job runs on the server whatever happens here.
        setLost(true);
        setJob((current) => ({ ...current }));
      }
    }, FOLLOW_INTERVAL_MS);
    return () => clearTimeout(timer);
  }, [job, finished, onUpdate]);
  const underWay = job.status === "queued" || job.status === "running";
  return (
    <ImportReport job={job} lost={lost}>
      {canCancel && underWay && (
        <Button disabled={cancelling} onClick={() => void cancel()}>
          {job.dry_run ? "Cancel the check" : "Cancel the import"}
        </Button>
      )}
      {refusal && (
        <p role="alert" className={errorClass + " m-0"}>
          {refusal}
        </p>
      )}
    </ImportReport>
  );
}

function ImportReport({ job, lost, children }: { job: ImportView; lost: boolean; children?: ReactNode }) {
  const check = job.dry_run;
  const heading = check ? "Check of the file" : "Import";
  const headingId = `import-${job.id}-heading`;
  const count = (value: number) => value.toLocaleString("en-AU");
  return (
    <section aria-labelledby={headingId} className="space-y-3" data-testid={check ? "import-check" : "import-run"}>
      <h2 id={headingId} className="m-0 text-lg">
        {heading}
      </h2>
      <Field
        id={`import-${job.id}-progress`}
        label={
          job.status === "done"
            ? `${check ? "Checked" : "Imported"}: ${count(job.total)} of ${count(job.total)} rows`
            : job.status === "failed"
              ? "Stopped"
              : job.status === "cancelled"
                ? `Cancelled after ${count(job.processed)} of ${count(job.total)} rows`
                : job.status === "cancelling"
                  ? `Cancelling: finishing the rows under way (${count(job.processed)} of ${count(job.total)} rows so far)`
                  : `${check ? "Checking" : "Importing"}: ${count(job.processed)} of ${count(job.total)} rows`
        }
      >
        {(control) => (
          <>
            <progress
              {...control}
              className="mt-1 h-3 w-full accent-blue-700"
              max={Math.max(job.total, 1)}
              value={job.status === "done" ? Math.max(job.total, 1) : job.processed}
            />
            {lost && <p className={mutedClass + " m-0"}>Lost touch with the server for a moment; asking again…</p>}
          </>
        )}
      </Field>
      {job.status === "done" && (
        <p role="status" className={noticeClass + " m-0"} data-testid="import-outcome">
          {check
            ? `${count(job.created)} ${job.created === 1 ? "link" : "links"} would be created, ${count(job.kept)} ` +
              `${job.kept === 1 ? "is" : "are"} already here, ${folded(job)}` +
              `${count(job.failed)} ${job.failed === 1 ? "row has" : "rows have"} a problem. Nothing was changed yet.`
            : `${count(job.created)} ${job.created === 1 ? "link" : "links"} created, ${count(job.kept)} already here, ` +
              `${folded(job)}${count(job.failed)} ${job.failed === 1 ? "row" : "rows"} not imported.`}
          {!check && (
            <>
              {" "}
              <Link href="/dashboard">See your links</Link>
            </>
          )}
        </p>
      )}
      {job.status === "cancelled" && (
        <p role="status" className={noticeClass + " m-0"} data-testid="import-outcome">
          {check
            ? `Check cancelled after ${count(job.processed)} of ${count(job.total)} rows. Nothing was changed.`
            : `Import cancelled after ${count(job.processed)} of ${count(job.total)} rows: ${count(job.created)} ` +
              `${job.created === 1 ? "link" : "links"} created, ${count(job.kept)} already here, ${folded(job)}` +
              `${count(job.failed)} ${job.failed === 1 ? "row" : "rows"} not imported. The rest of the file was not imported.`}
          {!check && (
            <>
              {" "}
              <Link href="/dashboard">See your links</Link>
            </>
          )}
        </p>
      )}
      {job.status === "failed" && (
        <p role="alert" className={errorClass + " m-0"}>
          The import stopped: {inCustomerWords(job.errors.at(-1)?.error ?? "something went wrong on our side.")}
        </p>
      )}
      {job.errors.length > 0 && <RowErrors job={job} />}
      {children}
    </section>
  );
}

/** Rows that repeat an earlier row's code or destination, when there are any: they share its link. */
function folded(job: ImportView): string {
  if (job.merged === 0) return "";
  return `${job.merged.toLocaleString("en-AU")} ${job.merged === 1 ? "row repeats" : "rows repeat"} an earlier row and ${job.merged === 1 ? "shares its link" : "share its link"}, `;
}

function RowErrors({ job }: { job: ImportView }) {
  const shown = job.errors.slice(0, SHOWN_ERRORS);
  const caption =
    job.errors.length > shown.length
      ? `Rows with a problem: the first ${shown.length} of ${job.failed.toLocaleString("en-AU")}`
      : "Rows with a problem";
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="m-0 font-medium">{caption}</p>
        <Button variant="small" onClick={() => downloadErrors(job)}>
          Download the problems (CSV)
        </Button>
      </div>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
        <table className="m-0 w-full text-sm">
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-zinc-50 dark:bg-zinc-900">
            <tr>
              <th scope="col" className="w-16">
                Row
              </th>
              <th scope="col">Link or destination</th>
              <th scope="col">Problem</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((error) => (
              <tr key={`${error.row}-${error.error}`}>
                <td className="tabular-nums">{error.row}</td>
                <td className="break-all">{error.subject ?? ""}</td>
                <td className="break-words">{inCustomerWords(error.error)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** The rows with a problem as a CSV file, written by the project's one CSV writer (formula-like cells escaped). */
function downloadErrors(job: ImportView) {
  const text = csvTable(
    ["row", "link_or_destination", "problem"],
    job.errors.map((error) => [error.row, error.subject ?? "", error.error]),
  );
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  link.download = `import-${job.id}-problems.csv`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}
