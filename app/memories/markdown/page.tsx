import { Suspense } from "react";
import { MarkdownView } from "@/components/memories/markdown-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "memory.md" };

export default function Page() {
  return (
    <Suspense>
      <MarkdownView />
    </Suspense>
  );
}
