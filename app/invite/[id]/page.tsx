import { AcceptInvitation } from "@/components/auth/accept-invitation";

export const dynamic = "force-dynamic";
export const metadata = { title: "Invitation" };

export default async function InvitePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <AcceptInvitation id={id} />;
}
