import { ProjectSettings } from "@/components/settings/project-settings";

export const dynamic = "force-dynamic";
export const metadata = { title: "Project" };

export default function Page() {
  return <ProjectSettings />;
}
