import { z } from "zod";
import { ZAppId, ZProfileHistory, ZProfileList, ZProfileVersion, ZProfileVersionCreate } from "../../profiles/schemas";
import { contract } from "../contract";
import { ZDateTime } from "../../http/scalars";

// Agent profiles (issue 22, part 2): per app_id, versioned settings. Scopes as the model
// presets' (settings:read / settings:write).

const tag = "profiles";
const ZAppParams = z.object({ app_id: ZAppId.describe("The agent's app_id (as conversations carry it)") });

export const listProfiles = contract({
  tag, method: "GET", path: "/profiles", scope: "settings:read",
  summary: "Agent profiles of the project: each app's version count and the version in force now",
  response: ZProfileList,
});

export const getProfile = contract({
  tag, method: "GET", path: "/profiles/{app_id}", scope: "settings:read",
  summary: "An app's profile: the version in force now and every version, newest first",
  params: ZAppParams, response: ZProfileHistory, errors: [404],
});

export const createProfileVersion = contract({
  tag, method: "POST", path: "/profiles/{app_id}/versions", scope: "settings:write",
  summary: "Change an app's profile: a new version (the first creates the profile), in force from effective_from (default now)",
  description:
    "Versions are never changed or deleted, so a replay of an old turn finds the settings of then. effective_from may not precede the newest version's. Settings identical to the newest version's (and no effective_from) make no new version: 200 with that version.",
  params: ZAppParams, body: ZProfileVersionCreate, response: ZProfileVersion, status: 201, alsoStatus: [200], errors: [422],
});

export const getProfileVersion = contract({
  tag, method: "GET", path: "/profiles/{app_id}/versions/{version}", scope: "settings:read",
  summary: "One version of an app's profile",
  // Text, not a number: a version that is no number names nothing, so it is a 404 like an unknown one.
  params: ZAppParams.extend({ version: z.string().describe("Version number (1, 2, ...)") }),
  response: ZProfileVersion, errors: [404],
});

export const getProfileInForce = contract({
  tag, method: "GET", path: "/profiles/{app_id}/in-force", scope: "settings:read",
  summary: "The version of an app's profile in force at an instant, default now (404 when none was yet)",
  params: ZAppParams,
  query: z.object({ at: ZDateTime.optional().describe("The instant (ISO 8601); default now") }).strict(),
  response: ZProfileVersion, errors: [404, 422],
});

export const PROFILE_CONTRACTS = [listProfiles, getProfile, createProfileVersion, getProfileVersion, getProfileInForce];
