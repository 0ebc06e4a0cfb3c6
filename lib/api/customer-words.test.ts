import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { apiWordsIn, inCustomerWords } from "./customer-words";

/**
 * Every sentence a capability can refuse or report with, as the dashboard would show it. Read from
 * the source: each sentence handed to a call (a DomainError, an error helper, a download's "none
 * here", a schema's validation message, which the dashboard prefixes with the field's name) or
 * returned by a function (a domain's next step). A new sentence that names a call, a setting or a
 * standard fails here until the mapping gives it a customer's words.
 */
const VALIDATION_CALLS = new Set([
  "regex",
  "min",
  "max",
  "length",
  "refine",
  "int",
  "positive",
  "nonnegative",
  "gte",
  "lte",
  "gt",
  "lt",
]);
/** Calls whose sentences no customer reads: logs, programming errors (a 500's generic sentence instead), the API's descriptions. */
const NOT_A_REFUSAL = new Set([
  "Error",
  "ConfigError",
  "TypeError",
  "RangeError",
  "info",
  "warn",
  "error",
  "debug",
  "fatal",
  "trace",
  "meta",
  "describe",
  "log",
]);
/**
 * Never shown in the dashboard: the API's own description (OpenAPI, MCP), logs, start-up
 * configuration, and machine payments (bought and recovered by programs, with no dashboard).
 */
const NOT_SHOWN = /^lib\/(openapi|mcp|log|config|db|payments)\/|^lib\/http\/payment-required\.ts$|\/operations\.ts$|\.test\.ts$/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return file.endsWith(".ts") && !NOT_SHOWN.test(file) ? [file] : [];
  });
}

/** A string expression's text, with each interpolation as a sample value (a same-file constant when it names one). */
function textOf(node: ts.Node, constants: Map<string, ts.Expression>, depth = 0): string | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isParenthesizedExpression(node)) return textOf(node.expression, constants, depth);
  if (ts.isTemplateExpression(node)) {
    return (
      node.head.text +
      node.templateSpans.map((span) => (textOf(span.expression, constants, depth + 1) ?? "x") + span.literal.text).join("")
    );
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const [left, right] = [textOf(node.left, constants, depth), textOf(node.right, constants, depth)];
    return left === null && right === null ? null : (left ?? "x") + (right ?? "x");
  }
  if (ts.isConditionalExpression(node)) {
    const [yes, no] = [textOf(node.whenTrue, constants, depth), textOf(node.whenFalse, constants, depth)];
    return yes === null ? no : no === null ? yes : `${yes} ${no}`;
  }
  if (ts.isIdentifier(node) && depth < 3) {
    const value = constants.get(node.text);
    return value ? textOf(value, constants, depth + 1) : null;
  }
  return null;
}

function calleeName(call: ts.CallExpression | ts.NewExpression): string {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return "";
}

/** Reads as a sentence for a person: words, and a full stop at the end or a schema's "must". */
const isSentence = (text: string) => /\s/.test(text) && (/[.!?]$/.test(text.trim()) || /^must /.test(text));

function refusalsIn(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const constants = new Map<string, ts.Expression>();
  const said: { node: ts.Expression; validation: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer)
      constants.set(node.name.text, node.initializer);
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && !NOT_A_REFUSAL.has(calleeName(node))) {
      const validation = VALIDATION_CALLS.has(calleeName(node)) && ts.isPropertyAccessExpression(node.expression);
      for (const argument of node.arguments ?? []) {
        if (!ts.isObjectLiteralExpression(argument)) said.push({ node: argument, validation });
        else
          for (const property of argument.properties)
            if (ts.isPropertyAssignment(property) && ["message", "error"].includes(property.name.getText(source)))
              said.push({ node: property.initializer, validation });
      }
    }
    if (ts.isReturnStatement(node) && node.expression) said.push({ node: node.expression, validation: false });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return said.flatMap(({ node, validation }) => {
    const text = textOf(node, constants);
    if (text === null || !isSentence(text)) return [];
    return [validation ? `The field ${text}.` : text];
  });
}

const REFUSALS = sourceFiles("lib").flatMap((file) => refusalsIn(file).map((sentence) => ({ file, sentence })));
if (process.env.PRINT_REFUSALS) for (const r of REFUSALS) console.log(r.file, "|", r.sentence);

describe("the dashboard's words for the API's refusals", () => {
  it("reads a few hundred refusals from the capabilities", () => {
    expect(REFUSALS.length).toBeGreaterThan(300);
    expect(REFUSALS.map((refusal) => refusal.sentence)).toContain(
      "This address already has a pending invitation to this workspace: re-send it (POST /api/members/{id}/resend) or revoke it.",
    );
  });

  it("leaves no method and path, setting name, standard's number or address range in any of them", () => {
    const left = REFUSALS.flatMap(({ file, sentence }) => {
      const words = apiWordsIn(inCustomerWords(sentence));
      return words.length > 0 ? [`${file}: ${inCustomerWords(sentence)} (${words.join("; ")})`] : [];
    });
    expect(left).toEqual([]);
  });

  it.each([
    [
      "This workspace has no active subscription, so it cannot create links. Subscribe with POST /api/billing/checkout (Unlimited, 49.00 AUD a month).",
      "This workspace has no active subscription, so it cannot create links. Choose a plan in Billing (Unlimited, 49.00 AUD a month).",
    ],
    [
      "This address already has a pending invitation to this workspace: re-send it (POST /api/members/{id}/resend) or revoke it.",
      "This address already has a pending invitation to this workspace: Re-send it or revoke it under Invitations.",
    ],
    [
      "Add the 2 records below at your DNS provider, then ask for a check (POST /api/domains/dom_1/verify); we also check by ourselves.",
      "Add the 2 records below at your DNS provider, then choose Verify now; we also check by ourselves.",
    ],
    [
      "this deployment has no address for apex domains (SHORT_HOST_IPV4): use a subdomain such as go.example.com.",
      "this deployment has no address for apex domains: use a subdomain such as go.example.com.",
    ],
    [
      "The country must be an ISO 3166-1 alpha-2 country code such as AU.",
      "The country must be a two-letter country code such as AU.",
    ],
    ["The destination points at a loopback address (127.0.0.0/8).", "The destination points at a loopback address."],
    [
      "The message could not be sent (SELF_SIGNED_CERT_IN_CHAIN).",
      "The message could not be sent: the receiver's HTTPS certificate is not one a browser would trust.",
    ],
    [
      'The destination uses the "ftp" scheme; only http and https links are allowed.',
      "The destination starts with ftp: and only web addresses (http:// or https://) can be short links.",
    ],
  ])("%s", (api, customer) => {
    expect(inCustomerWords(api)).toBe(customer);
  });
});
