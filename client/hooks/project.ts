"use client";
// The /settings pages over the project API (/api/v1/project...): keys, members, invitations,
// the audit log, renaming the project. Every write refreshes the whole project root.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Body, NewKey } from "../api-types";
import { keys } from "../query-keys";
import { api, ok } from "../transport";

export const useKeys = (enabled = true) => useQuery({ queryKey: keys.project.keys, queryFn: ({ signal }) => ok(api.GET("/project/keys", { signal })), enabled });
export const useMembers = () => useQuery({ queryKey: keys.project.members, queryFn: ({ signal }) => ok(api.GET("/project/members", { signal })) });
export const useInvitations = (enabled = true) =>
  useQuery({ queryKey: keys.project.invitations, queryFn: ({ signal }) => ok(api.GET("/project/invitations", { signal })), enabled });
export const useAudit = (enabled = true) => useQuery({ queryKey: keys.project.audit, queryFn: ({ signal }) => ok(api.GET("/project/audit", { signal })), enabled });

function useRefreshProject() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: keys.project.all });
}

export function useCreateKey() {
  const done = useRefreshProject();
  return useMutation({ mutationFn: (b: NewKey) => ok(api.POST("/project/keys", { body: b })), onSuccess: done });
}
export function useRevokeKey() {
  const done = useRefreshProject();
  return useMutation({ mutationFn: (id: string) => ok(api.DELETE("/project/keys/{key_id}", { params: { path: { key_id: id } } })), onSuccess: done });
}
export function useChangeRole() {
  const done = useRefreshProject();
  return useMutation({
    mutationFn: (v: { id: string } & Body<"/project/members/{member_id}", "patch">) => ok(api.PATCH("/project/members/{member_id}", { params: { path: { member_id: v.id } }, body: { role: v.role } })),
    onSuccess: done,
  });
}
export function useRemoveMember() {
  const done = useRefreshProject();
  return useMutation({ mutationFn: (id: string) => ok(api.DELETE("/project/members/{member_id}", { params: { path: { member_id: id } } })), onSuccess: done });
}
export function useInvite() {
  const done = useRefreshProject();
  return useMutation({ mutationFn: (b: Body<"/project/invitations", "post">) => ok(api.POST("/project/invitations", { body: b })), onSuccess: done });
}
export function useCancelInvitation() {
  const done = useRefreshProject();
  return useMutation({
    mutationFn: (id: string) => ok(api.DELETE("/project/invitations/{invitation_id}", { params: { path: { invitation_id: id } } })),
    onSuccess: done,
  });
}
/** The project's name also shows in the top bar's switcher: the session state refreshes. */
export function useRenameProject() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => ok(api.PATCH("/project", { body: { name } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.auth.state }),
  });
}

export const inviteLink = (id: string) => (typeof window === "undefined" ? `/invite/${id}` : `${window.location.origin}/invite/${id}`);
