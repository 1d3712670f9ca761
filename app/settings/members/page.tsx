import { MembersSettings } from "@/components/settings/members-settings";

export const dynamic = "force-dynamic";
export const metadata = { title: "Members" };

export default function Page() {
  return <MembersSettings />;
}
