import type { ApiContract } from "../contract";
import { AUTH_CONTRACTS } from "./auth";
import { CAPTURE_CONTRACTS } from "./capture";
import { CONTEXT_CONTRACTS, SETTINGS_CONTRACTS } from "./context";
import { CONVERSATION_CONTRACTS } from "./conversations";
import { CURATION_CONTRACTS } from "./curation";
import { IMPORT_CONTRACTS } from "./imports";
import { MEMORY_CONTRACTS } from "./memories";
import { NODE_MEMORY_CONTRACTS } from "./node-memory";
import { PROFILE_CONTRACTS } from "./profiles";
import { PROJECT_CONTRACTS } from "./project";
import { PRIVACY_CONTRACTS } from "./privacy";
import { PROVENANCE_CONTRACTS } from "./provenance";
import { REPLAY_CONTRACTS } from "./replay";
import { RETENTION_CONTRACTS } from "./retention";
import { EVAL_CONTRACTS } from "./evals";
import { INCIDENT_CONTRACTS } from "./incidents";

/** Every operation of Memscope's own: /api/v1, and the session routes under /api/auth. tests/unit/route-contracts.test.ts checks each has a route file and vice versa. */
export const ALL_CONTRACTS: readonly ApiContract[] = [
  ...CONVERSATION_CONTRACTS,
  ...NODE_MEMORY_CONTRACTS,
  ...MEMORY_CONTRACTS,
  ...CURATION_CONTRACTS,
  ...CONTEXT_CONTRACTS,
  ...SETTINGS_CONTRACTS,
  ...IMPORT_CONTRACTS,
  ...PROJECT_CONTRACTS,
  ...PROVENANCE_CONTRACTS,
  ...PRIVACY_CONTRACTS,
  ...AUTH_CONTRACTS,
  ...PROFILE_CONTRACTS,
  ...REPLAY_CONTRACTS,
  ...RETENTION_CONTRACTS,
  ...CAPTURE_CONTRACTS,
  ...EVAL_CONTRACTS,
  ...INCIDENT_CONTRACTS,
];
