import { API_OPERATIONS, buildOpenApi } from "@/lib/api/openapi";
import { ApiReference, type OpenApiDoc } from "@/components/docs/api-reference";
import { InlineCode } from "@/components/docs/inline-code";
import { ErrorCodesTable } from "@/components/docs/error-codes-table";
import { statusOfCode } from "@/lib/api/error-table";
import { ERROR_CODE_LIST, ERROR_CODES } from "@/lib/errors/error-codes";

export const metadata = { title: "API docs" };

// Pure computation from the zod schemas (no database), so it is safe to render on the server.
export default function ApiDocsPage() {
  const doc = buildOpenApi() as unknown as OpenApiDoc;
  return (
    <main className="mx-auto w-full max-w-5xl px-4 py-6 sm:px-6">
      <div className="mb-5 flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">API reference</h1>
          <p className="mt-0.5 max-w-2xl text-sm text-zinc-500 dark:text-zinc-400">
            <InlineCode text={doc.info.description ?? ""} /> JSON in snake_case under <code className="font-mono">/api/v1</code>.
          </p>
        </div>
        <a
          href="/api/v1/openapi.json"
          className="inline-flex h-9 items-center rounded-md border border-zinc-300 bg-white px-3.5 text-sm font-medium hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:hover:bg-zinc-800"
          data-testid="openapi-link"
        >
          openapi.json ↗
        </a>
      </div>
      <ApiReference doc={doc} operations={API_OPERATIONS} />
      <ErrorCodesTable rows={ERROR_CODE_LIST.map((code) => ({ code, status: statusOfCode(code), meaning: ERROR_CODES[code].meaning }))} />
    </main>
  );
}
