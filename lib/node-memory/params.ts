import "server-only";
import { ValidationError } from "../errors/domain-errors";
import { NODE_ID_PATTERN, NODE_ID_RULE } from "./schemas";

/** A node id from the path (percent-decoded): 1..200 of [A-Za-z0-9_.:-], else a 422 naming node_id. */
export function parseNodeId(value: string): string {
  let v = value;
  if (v.includes("%")) {
    try {
      v = decodeURIComponent(v);
    } catch {
      /* left as is: fails the pattern below */
    }
  }
  if (!NODE_ID_PATTERN.test(v)) {
    throw new ValidationError(`Invalid node_id: ${NODE_ID_RULE}`, [{ field: "node_id", message: NODE_ID_RULE }]);
  }
  return v;
}
