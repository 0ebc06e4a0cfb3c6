import { processSingleton } from "@/lib/process-singleton";

export type CountryLookup = (address: string | null) => string | null;

const loading = processSingleton("countryLookup", (): Promise<CountryLookup> =>
  import("geoip-country").then((module) => {
    const { lookup } = module.default ?? module;
    return (address) => {
      const country = address ? lookup(address)?.country : undefined;
      return country && COUNTRY_CODE.test(country) ? country : null;
    };
  }),
);

/**
 * Address → ISO 3166 country, from the GeoLite2 country database that geoip-country ships, read
 * into memory on first use (about 20 MB; no network). Null for private, loopback and unlisted
 * addresses.
 */
export function countryLookup(): Promise<CountryLookup> {
  return loading.get();
}

const COUNTRY_CODE = /^[A-Z]{2}$/;

/** A trusted edge's country header; Cloudflare's XX (unknown) and T1 (Tor) are not countries. */
export function countryFromEdge(value: string | null): string | null {
  const code = value?.trim().toUpperCase() ?? "";
  return COUNTRY_CODE.test(code) && code !== "XX" ? code : null;
}
