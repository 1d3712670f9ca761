// @vitest-environment happy-dom
// happy-dom replaces fetch; the harness starts a server on a port of its own before the document moves there.
// @vitest-environment-options {"settings": {"fetch": {"disableSameOriginPolicy": true}}}
import { randomUUID } from "node:crypto";
import { act, waitFor } from "@testing-library/react";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { browseTo, renderWithClient, startServerForHooks } from "./hook-harness";
import { useMetrics } from "@/client/hooks/memory-dashboard";
import { useMemory, useMemoryHistory, useMemoryList, usePatchMemory, type MemoryFilters } from "@/client/hooks/memories";
import { useModels, usePresets, useSavePresets } from "@/client/hooks/models";

// The client's invalidation rules, through the real hooks against the real server: what a write
// must refresh on screen without a reload.

describe("client data layer: what a write refreshes", () => {
  let server: AppServer;
  beforeAll(async () => {
    server = await startServerForHooks();
    browseTo(server.url, "/inspect");
  });
  afterAll(async () => server?.stop());

  it("saving presets refreshes every model picker (window controls, node memory, inspector) and the preset editor", async () => {
    const model = `hook-preset-${randomUUID().slice(0, 8)}`;
    const { result } = renderWithClient(() => ({
      windowPicker: useModels(),
      inspectorPicker: useModels(),
      presets: usePresets(true),
      save: useSavePresets(),
    }));
    await waitFor(() => expect(result.current.windowPicker.data && result.current.inspectorPicker.data && result.current.presets.data).toBeTruthy(), { timeout: 15_000 });
    expect(result.current.windowPicker.data!.map((m) => m.model)).not.toContain(model);

    await act(() => result.current.save.mutateAsync([{ model, context_window: 4096, encoding: "o200k_base", exact: false }]));

    await waitFor(() => expect(result.current.windowPicker.data!.map((m) => m.model)).toContain(model));
    expect(result.current.inspectorPicker.data!.map((m) => m.model)).toContain(model);
    expect(result.current.presets.data!.map((p) => p.model)).toContain(model);
  });

  it("a memory edit refreshes its list, its page (and history) and the dashboard", async () => {
    const user = `hooks-${randomUUID().slice(0, 8)}`;
    const api = apiClient(server.url);
    const created = await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Lives in Berlin", importance_score: 0.5 });
    expect(created.status).toBe(201);
    await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Works as a nurse", importance_score: 0.4 });
    const id: string = created.body.id;
    const filters: MemoryFilters = { memory_type: "", status: "active", q: "", min_importance: null, max_importance: null, sort: "updated_at", order: "desc" };

    const { result } = renderWithClient(() => ({
      list: useMemoryList(user, filters),
      page: useMemory(id),
      history: useMemoryHistory(id),
      dashboard: useMetrics(user),
      patch: usePatchMemory(),
    }));
    await waitFor(() => expect(result.current.list.data && result.current.page.data && result.current.history.data && result.current.dashboard.data).toBeTruthy(), {
      timeout: 15_000,
    });
    expect(result.current.dashboard.data!.totals.by_type).toMatchObject({ fact: 2 });
    const events = result.current.history.data!.length;

    await act(() => result.current.patch.mutateAsync({ id, version: result.current.page.data!.version, memory_type: "preference", content: "Lives in Lisbon" }));

    const row = () => result.current.list.data!.pages.flatMap((p) => p.data).find((m) => m.id === id);
    expect(row()).toMatchObject({ content: "Lives in Lisbon", memory_type: "preference" });
    expect(result.current.page.data).toMatchObject({ content: "Lives in Lisbon", memory_type: "preference" });
    await waitFor(() => expect(result.current.dashboard.data!.totals.by_type).toMatchObject({ fact: 1, preference: 1 }));
    await waitFor(() => expect(result.current.history.data!.length).toBeGreaterThan(events));
  });
});
