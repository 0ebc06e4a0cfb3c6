import { requireDashboard } from "@/lib/api/dashboard";
import { notFound } from "next/navigation";

/** Any other address under /dashboard: the dashboard's own not-found page, inside its frame (after sign-in, like every page here). */
export default async function MissingPage({ params }: { params: Promise<{ missing: string[] }> }) {
  const { missing } = await params;
  await requireDashboard(`/dashboard/${missing.map(encodeURIComponent).join("/")}`);
  notFound();
}
