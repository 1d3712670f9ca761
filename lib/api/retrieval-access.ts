import "server-only";
import type { SearchOptions } from "../memories/search-memories";
import type { Access } from "./access";

// A retrieval marks the memories it returns as accessed (access_count, last_accessed_at),
// and last_accessed_at is the recency term of every later search: a search is then a write
// to what others retrieve. So only a caller that may write records access; a read-only key
// or viewer is answered and logged, and changes no ranking (README, "Access rule").

/** How a caller's memory searches (POST .../memories/search, POST /context) treat access. */
export function retrievalOptions(access: Access): SearchOptions {
  return { recordAccess: access.grants.has("write") };
}
