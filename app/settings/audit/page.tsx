import { AuditLog } from "@/components/settings/audit-log";

export const dynamic = "force-dynamic";
export const metadata = { title: "Audit log" };

export default function Page() {
  return <AuditLog />;
}
