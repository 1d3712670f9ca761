import { defineApiSuite } from "./api-contract";
import { sharedProject } from "../helpers/shared-app";

// The same migrations and API through DATABASE_URL and @prisma/adapter-pg, on the
// PostgreSQL the test-database helper provides (a project of its own on this worker's shared
// server of that kind: tests/helpers/shared-app.ts).
defineApiSuite("PostgreSQL via DATABASE_URL", "postgres", () => sharedProject("postgres", "api-postgres"));
