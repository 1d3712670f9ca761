import { KeysSettings } from "@/components/settings/keys-settings";

export const dynamic = "force-dynamic";
export const metadata = { title: "API keys" };

export default function Page() {
  return <KeysSettings />;
}
