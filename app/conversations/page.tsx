import { Suspense } from "react";
import { ConversationsView } from "@/components/conversations/conversations-view";

// Data is fetched in the browser; the page itself must never be prerendered with stale rows.
export const dynamic = "force-dynamic";
export const metadata = { title: "Conversations" };

export default function ConversationsPage() {
  return (
    <Suspense>
      <ConversationsView />
    </Suspense>
  );
}
