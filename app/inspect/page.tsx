import { Suspense } from "react";
import { InspectView } from "@/components/inspect/inspect-view";

// Everything is fetched in the browser; the page itself is never prerendered.
export const dynamic = "force-dynamic";
export const metadata = { title: "Prompt inspector" };

export default function InspectPage() {
  return (
    <Suspense>
      <InspectView />
    </Suspense>
  );
}
