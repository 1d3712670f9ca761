import "server-only";
import { PENDING_HOURS } from "./store-captures";

// Which projects sent GenAI log events lately. A chat span without content waits for its log
// events (the contrib instrumentation sends them by another exporter, often later); the advice
// to turn on content capture is only right while a project sends none, so the warning is left
// out once its events arrive. Kept in this process: with several server processes, one that has
// not seen a project's events yet gives the warning, which is still true of what it received.
const seen = new Map<string, number>();
const WINDOW_MS = PENDING_HOURS * 3_600_000;
const MAX_PROJECTS = 10_000;

export function noteLogEvents(projectId: string, at = Date.now()): void {
  seen.delete(projectId);
  seen.set(projectId, at);
  // Insertion order is recency order: drop the oldest beyond the bound.
  if (seen.size > MAX_PROJECTS) seen.delete(seen.keys().next().value!);
}

export function logEventsSeenLately(projectId: string, now = Date.now()): boolean {
  const at = seen.get(projectId);
  return at !== undefined && now - at < WINDOW_MS;
}
