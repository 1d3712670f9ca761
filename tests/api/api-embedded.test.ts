import { defineApiSuite } from "./api-contract";
import { startAppOn } from "../helpers/test-database";

defineApiSuite("embedded PGlite", "pglite", () => startAppOn("embedded"));
