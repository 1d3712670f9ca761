import { z } from "zod";

/** One documented operation; the document is generated from these and the zod schemas. */
export type Op = {
  method: "get" | "post" | "patch" | "delete" | "put";
  path: string;
  summary: string;
  tag: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  response?: z.ZodType;
  status?: number;
  errors?: number[];
};

export const page = (item: z.ZodType) => z.object({ data: z.array(item), next_cursor: z.string().nullable() });
