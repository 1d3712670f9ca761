import { describe, expect, it } from "vitest";
import { fromVectorText, toVectorLiteral } from "@/lib/embeddings/embedding-provider";
import { openDatabase } from "@/lib/db/open-database";
import { removeDir } from "../helpers/temp-dir";
import { freshDataDir } from "../helpers/fresh-data-dir";

// Vectors go to and come from pgvector through the pgvector package's text form.
describe("vector literals (pgvector package)", () => {
  it("round-trips through pgvector's vector type, non-finite components stored as 0", async () => {
    const dir = await freshDataDir(); // a copy of a migrated folder: no initdb here
    const db = await openDatabase({ kind: "pglite", dataDir: dir }, { migrate: false });
    try {
      await db.sql.exec("CREATE EXTENSION IF NOT EXISTS vector");
      const v = [0.125, -1.5, 3e-7, 42, Number.NaN, Number.POSITIVE_INFINITY];
      const [row] = await db.sql.query<{ t: string; d: number }>(`SELECT $1::vector::text AS t, vector_dims($1::vector) AS d`, [toVectorLiteral(v)]);
      expect(row.d).toBe(6);
      expect(fromVectorText(row.t)).toEqual([0.125, -1.5, 3e-7, 42, 0, 0]);
    } finally {
      await db.close();
      removeDir(dir);
    }
  });
});
