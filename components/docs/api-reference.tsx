import { fieldRows, paramNotes, typeLabel, type JsonSchema } from "@/client/ui/json-schema-summary";
import { FieldTable } from "./field-table";
import { ResponseFields } from "./response-fields";

type Param = { name: string; in: string; required: boolean; schema: JsonSchema };
type Operation = {
  summary: string;
  parameters?: Param[];
  requestBody?: { content: { "application/json": { schema: JsonSchema } } };
  responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> }>;
  "x-scope"?: string;
};
export type OpenApiDoc = { info: { title: string; description?: string }; servers: { url: string }[]; paths: Record<string, Record<string, Operation>> };
export type OperationRef = { method: string; path: string; summary: string; server?: string };

const METHOD_TONE: Record<string, string> = {
  GET: "bg-sky-50 text-sky-700 ring-sky-200 dark:bg-sky-950 dark:text-sky-300 dark:ring-sky-900",
  POST: "bg-emerald-50 text-emerald-700 ring-emerald-200 dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-900",
  PATCH: "bg-amber-50 text-amber-800 ring-amber-200 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-900",
  DELETE: "bg-red-50 text-red-700 ring-red-200 dark:bg-red-950 dark:text-red-300 dark:ring-red-900",
};

export const anchorFor = (op: OperationRef) => `${op.method}-${op.path}`.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/-$/, "");

export function MethodBadge({ method }: { method: string }) {
  return (
    <span className={`inline-flex w-14 justify-center rounded px-1.5 py-0.5 font-mono text-[11px] font-semibold ring-1 ring-inset ${METHOD_TONE[method] ?? METHOD_TONE.GET}`}>
      {method}
    </span>
  );
}

/** The API reference, rendered from the same zod-generated OpenAPI document the API serves. */
export function ApiReference({ doc, operations }: { doc: OpenApiDoc; operations: OperationRef[] }) {
  const base = doc.servers[0]?.url ?? "";
  return (
    <div className="space-y-6">
      <nav aria-label="Endpoints" className="rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
        <ul className="grid grid-cols-1 gap-1 sm:grid-cols-2">
          {operations.map((op) => (
            <li key={anchorFor(op)}>
              <a href={`#${anchorFor(op)}`} className="flex items-center gap-2 rounded px-1.5 py-1 text-sm hover:bg-zinc-50 dark:hover:bg-zinc-800">
                <MethodBadge method={op.method} />
                <code className="min-w-0 truncate font-mono text-[13px]">{op.path}</code>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {operations.map((op) => {
        const spec = doc.paths[op.path]?.[op.method.toLowerCase()];
        return spec ? <OperationCard key={anchorFor(op)} op={op} spec={spec} base={op.server ?? base} /> : null;
      })}
    </div>
  );
}

function OperationCard({ op, spec, base }: { op: OperationRef; spec: Operation; base: string }) {
  const params = spec.parameters ?? [];
  // A raw upload (application/octet-stream) has no JSON fields to list.
  const body = spec.requestBody?.content["application/json"]?.schema;
  const bodyRows = fieldRows(body);
  const ok = Object.entries(spec.responses).find(([code]) => code.startsWith("2"));
  const errors = Object.keys(spec.responses).filter((c) => !c.startsWith("2"));
  const responseSchema = ok?.[1].content ? Object.values(ok[1].content)[0]?.schema : undefined;
  return (
    <section id={anchorFor(op)} className="scroll-mt-16 overflow-hidden rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <header className="flex flex-wrap items-center gap-3 border-b border-zinc-200 px-4 py-3 dark:border-zinc-800">
        <MethodBadge method={op.method} />
        <code className="font-mono text-sm font-medium">
          <span className="text-zinc-500">{base}</span>
          {op.path}
        </code>
        <span className="text-sm text-zinc-600 dark:text-zinc-400">{op.summary}</span>
        {spec["x-scope"] && (
          <span className="ml-auto rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-[11px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300" title="What the API key must hold">
            {spec["x-scope"] === "public" ? "public" : `scope ${spec["x-scope"]}`}
          </span>
        )}
      </header>
      <div className="space-y-4 px-4 py-4">
        {params.length > 0 && (
          <FieldTable
            title="Parameters"
            rows={params.map((p) => ({ name: p.name, type: typeLabel(p.schema), required: p.required, notes: [p.in, ...paramNotes(p.schema)], description: p.schema.description }))}
          />
        )}
        {body && <FieldTable title="Request body (application/json)" rows={bodyRows.length ? bodyRows : [{ name: "(body)", type: typeLabel(body), required: true, notes: [] }]} />}
        {ok && <ResponseFields status={ok[0]} rows={responseSchema ? fieldRows(responseSchema) : null} />}
        {errors.length > 0 && (
          <p className="text-xs text-zinc-500 dark:text-zinc-400">
            Errors: <span className="font-mono tabular-nums">{errors.join(", ")}</span> — body{" "}
            <code className="font-mono">{`{error: {code, message, details: [{field, message}]}}`}</code>
          </p>
        )}
      </div>
    </section>
  );
}
