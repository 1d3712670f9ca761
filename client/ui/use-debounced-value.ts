"use client";
import { useEffect, useState } from "react";

/** The value, settled for `delay` ms: drives requests without firing on every keystroke. */
export function useDebouncedValue<T>(value: T, delay: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(t);
  }, [value, delay]);
  return settled;
}
