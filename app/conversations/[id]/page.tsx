import type { Metadata } from "next";
import { Suspense } from "react";
import { ConversationDetail } from "@/components/conversation/conversation-detail";
import { conversationTitle } from "./conversation-title";

// Client-side data; never prerender. Only the <title> is read on the server.
export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  return { title: (await conversationTitle(id)) ?? "Conversation" };
}

export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <Suspense>
      <ConversationDetail id={id} />
    </Suspense>
  );
}
