import type { ReactNode } from "react";
import { ToastProvider } from "@/components/memories/toast";

export const metadata = { title: { default: "Memories", template: "%s · Memories · Memscope" } };

export default function MemoriesLayout({ children }: { children: ReactNode }) {
  return <ToastProvider>{children}</ToastProvider>;
}
