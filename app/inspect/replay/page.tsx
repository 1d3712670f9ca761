import { Suspense } from "react";
import { ReplayView } from "@/components/replay/replay-view";

// Everything is fetched in the browser; the page itself is never prerendered.
export const dynamic = "force-dynamic";
export const metadata = { title: "Replay a turn" };

export default function ReplayPage() {
  return (
    <Suspense>
      <ReplayView />
    </Suspense>
  );
}
