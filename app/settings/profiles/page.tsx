import { AgentProfiles } from "@/components/settings/agent-profiles";

export const dynamic = "force-dynamic";
export const metadata = { title: "Agent profiles" };

export default function Page() {
  return <AgentProfiles />;
}
