import { ZReplayInput, ZReplayResult } from "../../replay/schemas";
import { contract } from "../contract";

export const replayTurn = contract({
  tag: "replay", method: "POST", path: "/replay", scope: "context:read",
  summary: "Replay a past turn: the prompt POST /context would have answered then, why each memory was in or out, and what variants would have changed",
  description:
    "The thread up to the turn (its own branch), the turn's query, the memories as of the turn's time (or `as_of`) under the app's profile in force then (or `profile_version`, with `overrides`). A read: nothing is logged, nothing is marked accessed. `logged` sets the retrieval logged for the conversation around the turn beside the replayed one. Each of `variants` replays the same turn under other settings and answers its difference from the original.",
  body: ZReplayInput, response: ZReplayResult, errors: [404, 422],
});

export const REPLAY_CONTRACTS = [replayTurn];
