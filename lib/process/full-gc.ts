import v8 from "node:v8";
import vm from "node:vm";

/** V8's full collection, without starting node with --expose-gc (the flag only exposes it). */
export function fullGc(): (() => void) | null {
  try {
    v8.setFlagsFromString("--expose-gc");
    return vm.runInNewContext("gc") as () => void;
  } catch {
    return null;
  }
}
