import type { FilterDimension } from "@/lib/analytics/schemas";

const SOURCES: Record<string, string> = { qr: "QR code", link: "Link" };
const DEVICES: Record<string, string> = { desktop: "Computer", mobile: "Phone", tablet: "Tablet", tv: "TV" };
const COUNTRY_NAMES = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });

/**
 * A breakdown's value as the dashboard shows it: "QR code", "Direct", "Australia" where the API
 * says `qr`, `direct`, `AU`. The API, the CSV and the page's address keep the keys.
 */
export function valueInWords(dimension: FilterDimension, key: string): string {
  if (key === "unknown") return "Unknown";
  if (key === "other") return "Other";
  switch (dimension) {
    case "source":
      return SOURCES[key] ?? key;
    case "device":
      return DEVICES[key] ?? key;
    case "referrer":
      return key === "direct" ? "Direct (no referring site)" : key;
    case "country":
      return countryName(key);
    default:
      return key;
  }
}

function countryName(code: string): string {
  if (!/^[A-Z]{2}$/.test(code)) return code;
  return COUNTRY_NAMES.of(code) ?? code;
}
