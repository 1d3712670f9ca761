"use client";
import { useSyncExternalStore } from "react";

const never = () => () => {};

/**
 * False while React hydrates the component (the render that must match the server's HTML),
 * true after it, and true at once for a component first mounted on the client. A page's
 * <Suspense> content hydrates after the layout has committed, so a query the layout started
 * (the session, the incident badge) may already have answered by then: a component that
 * renders that answer during its hydration would differ from the server's HTML (React error
 * #418, and the boundary's HTML thrown away).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
