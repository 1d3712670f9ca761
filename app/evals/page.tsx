import { Suspense } from "react";
import { EvalsView } from "@/components/evals/evals-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Evals" };

export default function Page() {
  return (
    <Suspense>
      <EvalsView />
    </Suspense>
  );
}
