import * as api from "@/lib/api/contracts/context";
import { withApi } from "@/lib/api/with-api";
import { assembleContext } from "@/lib/context/assemble-context";
import { dataSql } from "@/lib/api/data-sql";
import { retrievalOptions } from "@/lib/api/retrieval-access";

export const dynamic = "force-dynamic";

export const POST = withApi(api.assembleContext, async ({ access, body }) => assembleContext(await dataSql(access), body, retrievalOptions(access)));
