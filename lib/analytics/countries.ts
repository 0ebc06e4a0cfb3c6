import { log } from "@/lib/log";
import { processSingleton } from "@/lib/process-singleton";

export type CountryLookup = (address: string | null) => string | null;

const loading = processSingleton("countryLookup", () => {
  const state: { loaded?: CountryLookup; promise: Promise<CountryLookup> } = {
    promise: import("geoip-country").then((module) => {
      const { lookup } = module.default ?? module;
      state.loaded = (address) => {
        const country = address ? lookup(address)?.country : undefined;
        return country && COUNTRY_CODE.test(country) ? country : null;
      };
      return state.loaded;
    }),
  };
  state.promise.catch((error: unknown) => {
    log().error({ err: error }, "The country database could not be read: no visitor is located by address.");
    state.loaded = () => null;
  });
  return state;
});

/**
 * Address → ISO 3166 country, from the GeoLite2 country database that geoip-country ships, read
 * into memory on first use (about 20 MB; no network). Null for private, loopback and unlisted
 * addresses.
 */
export function countryLookup(): Promise<CountryLookup> {
  return loading.get().promise;
}

/**
 * countryLookup without waiting: the lookup once the database is in memory (one that locates
 * nothing if it could not be read), undefined before (reading it has started).
 */
export function countryLookupNow(): CountryLookup | undefined {
  return loading.get().loaded;
}

/**
 * The visitor's country: the one fact analytics records and routing rules match. A trusted edge's
 * header when it names a country, otherwise the country of the trusted client address (`address`
 * is asked only then).
 */
export function visitorCountry(
  edgeCountry: string | null,
  address: () => string | null,
  countryOf: CountryLookup,
): string | null {
  return countryFromEdge(edgeCountry) ?? countryOf(address());
}

const COUNTRY_CODE = /^[A-Z]{2}$/;

/** A trusted edge's country header; Cloudflare's XX (unknown) and T1 (Tor) are not countries. */
export function countryFromEdge(value: string | null): string | null {
  const code = value?.trim().toUpperCase() ?? "";
  return isCountryCode(code) ? code : null;
}

/** Two capitals, as ISO 3166-1 alpha-2 writes a country; Cloudflare's XX (unknown) is none. */
export function isCountryCode(value: string): boolean {
  return COUNTRY_CODE.test(value) && value !== "XX";
}
