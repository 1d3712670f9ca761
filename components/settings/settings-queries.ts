"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { request } from "@/lib/ui/api-client";
import type { ZAuditList, ZInvitation, ZInvitationList, ZKeyCreated, ZKeyList, ZMember, ZMemberList, ZProject } from "@/lib/auth/schemas";

// Hooks for the /settings pages over the project API (/api/v1/project...).

export type KeySummary = z.infer<typeof ZKeyList>["data"][number];
export type KeyCreated = z.infer<typeof ZKeyCreated>;
export type Member = z.infer<typeof ZMember>;
export type Invitation = z.infer<typeof ZInvitation>;
export type AuditEvent = z.infer<typeof ZAuditList>["data"][number];

const K = { keys: ["project", "keys"], members: ["project", "members"], invitations: ["project", "invitations"], audit: ["project", "audit"] };

export const useKeys = (enabled = true) => useQuery({ queryKey: K.keys, queryFn: () => request<z.infer<typeof ZKeyList>>("GET", "/project/keys"), enabled });
export const useMembers = () => useQuery({ queryKey: K.members, queryFn: () => request<z.infer<typeof ZMemberList>>("GET", "/project/members") });
export const useInvitations = (enabled = true) =>
  useQuery({ queryKey: K.invitations, queryFn: () => request<z.infer<typeof ZInvitationList>>("GET", "/project/invitations"), enabled });
export const useAudit = (enabled = true) => useQuery({ queryKey: K.audit, queryFn: () => request<z.infer<typeof ZAuditList>>("GET", "/project/audit"), enabled });

function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: ["project"] });
}

export function useCreateKey() {
  const done = useInvalidate();
  return useMutation({
    mutationFn: (b: { name: string; scopes: string[]; expiresInDays: number | null }) => request<KeyCreated>("POST", "/project/keys", { body: b }),
    onSuccess: done,
  });
}
export function useRevokeKey() {
  const done = useInvalidate();
  return useMutation({ mutationFn: (id: string) => request<void>("DELETE", `/project/keys/${encodeURIComponent(id)}`), onSuccess: done });
}
export function useChangeRole() {
  const done = useInvalidate();
  return useMutation({ mutationFn: (v: { id: string; role: string }) => request<Member>("PATCH", `/project/members/${encodeURIComponent(v.id)}`, { body: { role: v.role } }), onSuccess: done });
}
export function useRemoveMember() {
  const done = useInvalidate();
  return useMutation({ mutationFn: (id: string) => request<void>("DELETE", `/project/members/${encodeURIComponent(id)}`), onSuccess: done });
}
export function useInvite() {
  const done = useInvalidate();
  return useMutation({ mutationFn: (b: { email: string; role: string }) => request<Invitation>("POST", "/project/invitations", { body: b }), onSuccess: done });
}
export function useCancelInvitation() {
  const done = useInvalidate();
  return useMutation({ mutationFn: (id: string) => request<void>("DELETE", `/project/invitations/${encodeURIComponent(id)}`), onSuccess: done });
}
export function useRenameProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => request<z.infer<typeof ZProject>>("PATCH", "/project", { body: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["auth-state"] }),
  });
}

export const inviteLink = (id: string) => (typeof window === "undefined" ? `/invite/${id}` : `${window.location.origin}/invite/${id}`);
