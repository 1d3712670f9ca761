import { buildOpenApi } from "@/lib/api/openapi";

export const dynamic = "force-static";

// Public on purpose: the API description holds no data.
export function GET() {
  return Response.json(buildOpenApi());
}
