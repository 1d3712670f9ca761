import { Suspense } from "react";
import { ConversationDetail } from "@/components/conversation/conversation-detail";

// Client-side data; never prerender. The DB is not opened here.
export const dynamic = "force-dynamic";

export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense>
      <ConversationDetail id={id} />
    </Suspense>
  );
}
