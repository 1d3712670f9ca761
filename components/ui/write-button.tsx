"use client";
import type { ComponentProps } from "react";
import { useCanWrite } from "@/client/hooks/auth";
import { Button } from "./button";

export const READ_ONLY_HINT = "Read only: your role in this project is viewer";

/** A Button that changes data: disabled, with the reason as its tooltip, for a viewer. */
export function WriteButton({ disabled, title, ...rest }: ComponentProps<typeof Button>) {
  const canWrite = useCanWrite();
  return <Button {...rest} disabled={disabled || !canWrite} title={canWrite ? title : READ_ONLY_HINT} data-writes="" />;
}
