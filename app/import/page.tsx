import { ImportView } from "@/components/import/import-view";

export const dynamic = "force-dynamic";
export const metadata = { title: "Import" };

export default function Page() {
  return <ImportView />;
}
