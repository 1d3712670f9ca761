import { Suspense } from "react";
import { MemoryDetail } from "@/components/memories/memory-detail";

export const dynamic = "force-dynamic";
export const metadata = { title: "Memory" };

export default async function MemoryPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense>
      <MemoryDetail id={id} />
    </Suspense>
  );
}
