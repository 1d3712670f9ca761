import { RetentionSettings } from "@/components/settings/retention-settings";

export const dynamic = "force-dynamic";
export const metadata = { title: "Retention" };

export default function Page() {
  return <RetentionSettings />;
}
