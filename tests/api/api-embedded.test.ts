import { defineApiSuite } from "./api-contract";
import { sharedProject } from "../helpers/shared-app";

// A project of its own on this worker's shared embedded server (tests/helpers/shared-app.ts).
defineApiSuite("embedded PGlite", "pglite", () => sharedProject("embedded", "api-embedded"));
