// Memory as of any instant (issue 22, part 1): the interface the replay builds on.
// Plain functions over a ProjectSql; none writes (but the embedding cache) and none bumps access.
export { asOfInstant, exactAsOf, listMemoriesAsOf, loadMemoryAsOf, memoriesAsOf, requireMemoryAsOf, withRelationsAsOf, type AsOfListOptions } from "./list-as-of";
export { rankMemoriesAsOf, searchMemoriesAsOf, type AsOfSearchInput, type RankedAsOf, type ScoredAsOf, type SearchAsOfResult } from "./search-as-of";
export type { RebuiltMemory } from "./rebuild-state";
export type { MemoryAsOf } from "../schemas";
