import { Suspense } from "react";
import { IncidentsView } from "@/components/incidents/incidents-view";
import { ToastProvider } from "@/components/memories/toast";

// Data is fetched in the browser; the page itself must never be prerendered with stale rows.
export const dynamic = "force-dynamic";
export const metadata = { title: "Memory incidents" };

export default function IncidentsPage() {
  return (
    <ToastProvider>
      <Suspense>
        <IncidentsView />
      </Suspense>
    </ToastProvider>
  );
}
