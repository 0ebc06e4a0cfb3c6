import { LoadingState } from "@/components/ui/loading-state";

/**
 * The links list's loading state. It sits in this route group, not beside the dashboard's layout,
 * because a loading.tsx there would wrap every page under /dashboard: a missing link's page would
 * then start streaming (status 200) before it found no link, instead of answering 404.
 */
export default function Loading() {
  return <LoadingState what="your links" />;
}
