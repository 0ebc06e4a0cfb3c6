import { createHash, verify } from "node:crypto";
import {
  ESCROW_FORMAT,
  ESCROW_VERSION,
  type EscrowCode,
  type EscrowHeader,
  type EscrowKeysDocument,
  type EscrowTrailer,
  keyId,
  publicKeyFromRaw,
  signedStatement,
} from "./format";

export type Verified = { ok: true; header: EscrowHeader; codes: number; kept: EscrowCode[] };
export type Refused = { ok: false; problem: string };

const STATUSES = new Set(["active", "quarantine", "abuse"]);

/**
 * Reads an escrow file (its bytes, in any chunks) and says whether it is whole and signed: the
 * header, every code line (each code once), the signature line last, its count and digest, the
 * Ed25519 signature with the key the header pins, and, given `trusted` (the well-known document's
 * keys), that this key is one of the service's. Every refusal is one sentence a person can act on.
 * With `keep`, the codes are returned too (to serve them).
 */
export async function verifyEscrow(
  chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  options: { trusted?: EscrowKeysDocument["keys"]; keep?: boolean } = {},
): Promise<Verified | Refused> {
  const digest = createHash("sha256");
  const seen = new Map<string, number>();
  const kept: EscrowCode[] = [];
  let header: EscrowHeader | null = null;
  let trailer: EscrowTrailer | null = null;
  let lineNumber = 0;
  let codes = 0;
  let problem: string | null = null;

  const readLine = (bytes: Buffer): string | null => {
    lineNumber++;
    if (trailer) return `The file goes on after its signature line (line ${lineNumber}): nothing there is signed.`;
    const text = bytes.toString("utf8");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return lineNumber === 1
        ? "This is not a Permalink escrow file: its first line is not JSON."
        : `Line ${lineNumber} is not JSON: the file was damaged or edited.`;
    }
    if (lineNumber === 1) {
      const found = headerProblem(value);
      if (found) return found;
      header = value as EscrowHeader;
      digest.update(bytes).update("\n");
      return null;
    }
    if (isRecord(value) && value.end === true) {
      trailer = value as EscrowTrailer;
      return null;
    }
    const wrong = codeProblem(value);
    if (wrong) return `Line ${lineNumber} is not a code as the format has it: ${wrong}.`;
    const code = value as EscrowCode;
    const key = `${code.host}/${code.slug}`;
    const first = seen.get(key);
    if (first !== undefined)
      return `Line ${lineNumber} lists the code ${key} again (first on line ${first}): each code appears once.`;
    seen.set(key, lineNumber);
    codes++;
    if (options.keep) kept.push(code);
    digest.update(bytes).update("\n");
    return null;
  };

  let pending = Buffer.alloc(0);
  for await (const chunk of chunks) {
    pending = Buffer.concat([pending, typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk]);
    let newline: number;
    while (problem === null && (newline = pending.indexOf(0x0a)) !== -1) {
      problem = readLine(pending.subarray(0, newline));
      pending = pending.subarray(newline + 1);
    }
    if (problem !== null) return { ok: false, problem };
  }
  if (lineNumber === 0 && pending.length === 0) return { ok: false, problem: "The file is empty: it holds no escrow." };
  if (pending.length > 0)
    return {
      ok: false,
      problem:
        `The file is truncated: line ${lineNumber + 1} stops part-way, before the signature line ` +
        `(${codes} codes were read whole).`,
    };
  if (!header) return { ok: false, problem: "This is not a Permalink escrow file: it has no header line." };
  if (!trailer)
    return {
      ok: false,
      problem: `The file is truncated: it ends after line ${lineNumber} without its signature line (${codes} codes were read).`,
    };
  return checkSignature(header, trailer, digest.digest("hex"), codes, options.trusted, kept);
}

function checkSignature(
  header: EscrowHeader,
  trailer: EscrowTrailer,
  sha256: string,
  codes: number,
  trusted: EscrowKeysDocument["keys"] | undefined,
  kept: EscrowCode[],
): Verified | Refused {
  if (typeof trailer.codes !== "number" || typeof trailer.sha256 !== "string" || typeof trailer.signature !== "string")
    return { ok: false, problem: "The signature line is damaged: it needs codes, sha256 and signature." };
  if (trailer.codes !== codes)
    return {
      ok: false,
      problem: `The signature line counts ${trailer.codes} codes but the file holds ${codes}: codes were added or removed after signing.`,
    };
  if (trailer.sha256 !== sha256)
    return { ok: false, problem: "The file's contents do not match its signature line: a line was changed after it was signed." };
  const raw = Buffer.from(header.key.public_key, "base64url");
  if (raw.length !== 32 || keyId(raw) !== header.key.id)
    return { ok: false, problem: "The header's key is damaged: its id is not the fingerprint of its public key." };
  let valid = false;
  try {
    valid = verify(null, signedStatement(sha256, codes), publicKeyFromRaw(raw), Buffer.from(trailer.signature, "base64url"));
  } catch {
    valid = false;
  }
  if (!valid)
    return {
      ok: false,
      problem: `The signature is forged or damaged: it does not verify with the key the header pins (${header.key.id}).`,
    };
  const listed = trusted?.find((key) => key.id === header.key.id && key.public_key === header.key.public_key);
  if (trusted && !listed)
    return {
      ok: false,
      problem:
        `The file is signed by key ${header.key.id}, which is not one of the service's keys: ` +
        "whoever signed it is not the service.",
    };
  if (listed?.retired_at) {
    const retired = Date.parse(listed.retired_at);
    const snapshot = Date.parse(header.snapshot_at);
    if (Number.isNaN(snapshot) || Number.isNaN(retired) || retired < snapshot)
      return {
        ok: false,
        problem:
          `The file is signed by key ${header.key.id}, which the service retired at ${listed.retired_at}, before the ` +
          `snapshot's time (${header.snapshot_at}): a retired key signs nothing new, so whoever signed it is not the service.`,
      };
  }
  return { ok: true, header, codes, kept };
}

function headerProblem(value: unknown): string | null {
  if (!isRecord(value) || value.format !== ESCROW_FORMAT)
    return "This is not a Permalink escrow file: its first line is not an escrow header.";
  if (value.version !== ESCROW_VERSION)
    return `This escrow file is format version ${String(value.version)}; this verifier reads version ${ESCROW_VERSION}.`;
  const key = value.key;
  if (!isRecord(key) || key.algorithm !== "Ed25519" || typeof key.id !== "string" || typeof key.public_key !== "string")
    return "The header does not pin an Ed25519 key (key: {id, algorithm, public_key}).";
  if (typeof value.snapshot_at !== "string" || typeof value.short_base_url !== "string" || !isRecord(value.scope))
    return "The header is incomplete: it needs snapshot_at, short_base_url and scope.";
  return null;
}

function codeProblem(value: unknown): string | null {
  if (!isRecord(value)) return "it is not an object";
  for (const field of ["host", "slug", "created_at"] as const)
    if (typeof value[field] !== "string" || value[field] === "") return `${field} is missing`;
  if (!STATUSES.has(value.status as string)) return "status must be active, quarantine or abuse";
  if (!Array.isArray(value.rules) || !Array.isArray(value.schedule)) return "rules and schedule must be lists";
  if (typeof value.password_protected !== "boolean") return "password_protected must be true or false";
  // A published file withholds a password-protected code's destinations (docs/escrow.md): null only there.
  if (value.destination === null && value.password_protected) return null;
  if (typeof value.destination !== "string" || value.destination === "")
    return "destination is missing (only a password-protected code's may be null)";
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
