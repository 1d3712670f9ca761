import { defineApiSuite } from "./api-contract";
import { startAppOn } from "../helpers/test-database";

// The same migrations and API through DATABASE_URL and @prisma/adapter-pg, on the
// PostgreSQL the test-database helper provides.
defineApiSuite("PostgreSQL via DATABASE_URL", "postgres", () => startAppOn("postgres"));
