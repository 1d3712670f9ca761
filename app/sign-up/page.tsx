import { FirstAdminForm } from "@/components/auth/first-admin-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Create the admin account" };

export default function SignUpPage() {
  return <FirstAdminForm />;
}
