// npm run db:seed — loads the demo conversations if the database has none.
import { openDatabase } from "../lib/db/open-database";
import { seedIfEmpty } from "../lib/demo/seed-if-empty";

const db = await openDatabase();
try {
  const n = await seedIfEmpty(db);
  console.log(n ? `Seeded ${n} demo conversations.` : "The database already has conversations; nothing seeded.");
} finally {
  await db.close();
}
