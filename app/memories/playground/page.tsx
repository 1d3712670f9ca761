import { Suspense } from "react";
import { PlaygroundView } from "@/components/memories/playground-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Retrieval playground" };

export default function Page() {
  return (
    <Suspense>
      <PlaygroundView />
    </Suspense>
  );
}
