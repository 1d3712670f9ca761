import { Suspense } from "react";
import { DashboardView } from "@/components/memories/dashboard-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Dashboard" };

export default function Page() {
  return (
    <Suspense>
      <DashboardView />
    </Suspense>
  );
}
