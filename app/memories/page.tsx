import { Suspense } from "react";
import { MemoryTableView } from "@/components/memories/memory-table-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Table" };

export default function Page() {
  return (
    <Suspense>
      <MemoryTableView />
    </Suspense>
  );
}
