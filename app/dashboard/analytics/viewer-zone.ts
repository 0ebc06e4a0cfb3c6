import { isTimeZoneName } from "@/lib/analytics/schemas";
import { cookies } from "next/headers";
import { TIME_ZONE_COOKIE } from "./range";

/**
 * The time zone the browser reported (ViewerTimeZone's cookie), as sent, and the zone to cut days in: that one
 * when it is a real IANA name, else UTC.
 */
export async function viewerZone(): Promise<{ reported: string | undefined; zone: string }> {
  const reported = (await cookies()).get(TIME_ZONE_COOKIE)?.value;
  return { reported, zone: reported && isTimeZoneName(reported) ? reported : "UTC" };
}
