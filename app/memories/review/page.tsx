import { Suspense } from "react";
import { ReviewView } from "@/components/memories/review-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Review" };

export default function Page() {
  return (
    <Suspense>
      <ReviewView />
    </Suspense>
  );
}
