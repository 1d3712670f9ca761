import { defineApiSuite } from "./api-contract";
import { startAppServer } from "../helpers/app-server";

defineApiSuite("embedded PGlite", "pglite", () => startAppServer());
