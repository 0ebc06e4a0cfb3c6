declare module "geoip-country" {
  export function lookup(address: string): { country?: string } | null;
  const geoip: { lookup: typeof lookup };
  export default geoip;
}
