import { defineOperation, failure, ok, type ParameterSpec, paymentRequired } from "@/lib/http/operation";
import { DOMAIN_NOT_FOUND } from "./not-found";
import {
  addDomainBody,
  domainCheckTotalsSchema,
  domainListSchema,
  domainSchema,
  tlsAskAnswerSchema,
  tlsAskQuery,
  updateDomainBody,
} from "./schemas";

const DOMAIN_ID_PARAMETER = {
  name: "id",
  in: "path",
  required: true,
  description: "the domain's id, as returned when it was added",
} as const satisfies ParameterSpec;
const MANAGE_REFUSED = "Your role does not allow managing custom domains: owners, admins and the workspace's API key may.";

export const addDomain = defineOperation({
  method: "post",
  path: "/api/domains",
  auth: "workspace",
  scope: "domains:write",
  operationId: "addDomain",
  summary: "Add a custom domain",
  description:
    "Claims a hostname for the workspace and checks its DNS at once. The hostname is normalised like " +
    "a destination's host (lower case, IDN as A-label, no trailing dot, no port); an IP address, a " +
    "single label, a reserved or internal name (.local, .internal, …), a public suffix, or one of " +
    "this service's own hosts is refused. Prove ownership with the TXT record _permalink.<hostname> " +
    "holding this domain's token, and route visitors with a CNAME to the short host (an apex such as " +
    "example.com, which cannot be a CNAME, uses A and AAAA records to SHORT_HOST_IPV4 and " +
    "SHORT_HOST_IPV6); the Domain's dns lists exactly what to create. Several workspaces may add the " +
    "same hostname: the first whose records are right owns it, and the others see why in " +
    "validation_errors. Needs an active subscription.",
  tag: "Domains",
  write: true,
  body: addDomainBody,
  responses: {
    201: ok("The domain, already checked once: dns lists the records to create and next says what to do.", domainSchema),
    400: failure("The body failed validation, or the hostname cannot be a custom domain (the error says why)."),
    402: paymentRequired("Custom domains need an active subscription; existing links keep resolving."),
    403: failure(MANAGE_REFUSED),
    409: failure("The workspace already has this hostname."),
  },
});

export const listDomains = defineOperation({
  method: "get",
  path: "/api/domains",
  auth: "workspace",
  scope: "domains:read",
  operationId: "listDomains",
  summary: "List custom domains",
  description:
    "Every domain of the workspace, most recent first, verified or not, each with the records it " +
    "needs and one sentence (next) saying what to do now.",
  tag: "Domains",
  responses: { 200: ok("The workspace's domains.", domainListSchema) },
});

export const getDomain = defineOperation({
  method: "get",
  path: "/api/domains/{id}",
  auth: "workspace",
  scope: "domains:read",
  operationId: "getDomain",
  summary: "Get a custom domain",
  description:
    "The domain as the last check left it (the background job re-checks it on a back-off schedule; " +
    "POST /api/domains/{id}/verify checks now).",
  tag: "Domains",
  parameters: [DOMAIN_ID_PARAMETER],
  responses: {
    200: ok("The domain.", domainSchema),
    404: failure(DOMAIN_NOT_FOUND),
  },
});

export const updateDomain = defineOperation({
  method: "patch",
  path: "/api/domains/{id}",
  auth: "workspace",
  scope: "domains:write",
  operationId: "updateDomain",
  summary: "Set where a custom domain's root and unknown codes go",
  description:
    "A verified domain may send a visit of its root (https://go.example.com/) to root_destination and a visit " +
    "of a code it does not have to not_found_destination, each with a redirect; null puts back our own plain " +
    "page, and a field left out stays as it is. Each destination passes the same rules and safety checks as a " +
    "link's. A code that exists always answers for itself, and a code typed in another case is looked for " +
    "first (it reaches the one code it matches), so not_found_destination never hides an existing code.",
  tag: "Domains",
  write: true,
  parameters: [DOMAIN_ID_PARAMETER],
  body: updateDomainBody,
  responses: {
    200: ok("The domain, with its destinations.", domainSchema),
    400: failure("The body failed validation, or a destination is not an http or https URL."),
    403: failure(MANAGE_REFUSED),
    404: failure(DOMAIN_NOT_FOUND),
    409: failure("The domain is not verified yet."),
    422: failure("A destination was refused by the safety checks."),
  },
});

export const verifyDomain = defineOperation({
  method: "post",
  path: "/api/domains/{id}/verify",
  auth: "workspace",
  scope: "domains:write",
  operationId: "verifyDomain",
  summary: "Check a custom domain's DNS now",
  description:
    "Looks up the records now through the configured resolver and returns the Domain. verified " +
    "becomes true when both the ownership (TXT) and routing (CNAME, or the apex's A/AAAA) records " +
    "are right, and stays true: links on a verified domain keep resolving whatever later checks " +
    "find, which show in hostname_status (misconfigured) and validation_errors instead. A CAA record " +
    "that forbids our certificate authority makes cert_status failed.",
  tag: "Domains",
  write: true,
  parameters: [DOMAIN_ID_PARAMETER],
  responses: {
    200: ok("The domain after the check.", domainSchema),
    403: failure(MANAGE_REFUSED),
    404: failure(DOMAIN_NOT_FOUND),
  },
});

export const removeDomain = defineOperation({
  method: "delete",
  path: "/api/domains/{id}",
  auth: "workspace",
  scope: "domains:write",
  operationId: "removeDomain",
  summary: "Delete a custom domain",
  description:
    "Deletes a domain that carries no links (archived links count: they keep resolving too) and " +
    "removes it from the TLS provider. A domain with links cannot be deleted.",
  tag: "Domains",
  write: true,
  parameters: [DOMAIN_ID_PARAMETER],
  responses: {
    204: { description: "The domain was deleted." },
    403: failure(MANAGE_REFUSED),
    404: failure(DOMAIN_NOT_FOUND),
    409: failure("Links live on this domain, so it cannot be deleted."),
    502: failure("The TLS provider did not confirm the removal; the domain was kept. Try again."),
  },
});

export const askTlsPermission = defineOperation({
  method: "get",
  path: "/api/domains/tls-ask",
  auth: "public",
  operationId: "askTlsPermission",
  summary: "May a certificate be issued for this name? (Caddy on-demand TLS)",
  description:
    "Caddy's on-demand TLS permission check (`ask`, or `permission http`): 200 only when the name is " +
    "a verified custom domain of this service, so nobody can make the server request certificates " +
    "for names it does not serve. One cached lookup per name.",
  tag: "Domains",
  query: tlsAskQuery,
  responses: {
    200: ok("A certificate may be issued.", tlsAskAnswerSchema),
    400: failure("The domain parameter is missing or not a hostname."),
    404: failure("The name is not a verified custom domain of this service."),
    503: failure("The database could not be reached; Caddy will ask again."),
  },
});

export const checkDomains = defineOperation({
  method: "get",
  path: "/api/cron/domains",
  auth: "cron",
  operationId: "checkDomains",
  summary: "Run the background domain check (cron)",
  description:
    "Checks the domains that are due (new and failing ones back off from one minute to six hours; " +
    "healthy ones every six hours), then e-mails the owners and admins of each verified domain whose " +
    "DNS no longer points here, once per failure (its links keep resolving). One instance runs it at " +
    "a time (a lease in PostgreSQL); a run while another holds the lease does nothing and says so.",
  tag: "Operations",
  responses: { 200: ok("What this run did.", domainCheckTotalsSchema) },
});
