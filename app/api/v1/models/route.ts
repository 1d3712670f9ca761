import { withApi } from "@/lib/api/with-api";
import { KNOWN_MODELS, resolveTokenizer } from "@/lib/tokens/registry";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => ({ data: KNOWN_MODELS.map((m) => resolveTokenizer(m)) }));
