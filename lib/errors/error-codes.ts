// Every error code the API answers with: one closed set. Each code belongs to one kind, and the
// kind decides the HTTP status (lib/api/error-table.ts), so a code always comes with the same
// status. The contracts' error body is an enum of these codes, so the OpenAPI document and the
// SDK list them, and the API page shows this table. A new code is added here first; the
// compiler refuses any other string.

/** The kinds of error domain code throws (domain-errors.ts); each maps to one HTTP status. */
export type ErrorKind =
  | "bad_request"
  | "not_found"
  | "conflict"
  | "validation"
  | "too_large"
  | "configuration"
  | "provider"
  | "unavailable"
  | "unauthorized"
  | "forbidden"
  | "rate_limited"
  | "unsupported_media_type"
  | "method_not_allowed"
  | "internal";

export const ERROR_CODES = {
  invalid_json: { kind: "bad_request", meaning: "The body is not JSON, or not UTF-8." },
  body_incomplete: { kind: "bad_request", meaning: "The request body broke off before its end (the client went away or the connection failed): nothing was done; send it again." },
  nesting_too_deep: { kind: "bad_request", meaning: "The JSON body is nested deeper than the input limit." },
  too_many_keys: { kind: "bad_request", meaning: "A JSON object of the body holds more keys than the input limit." },
  unsupported_text: { kind: "bad_request", meaning: "Text the database cannot store (a NUL character, a lone surrogate); details name the field." },
  invalid_cursor: { kind: "bad_request", meaning: "The pagination cursor is not one this API issued for this list." },
  invalid_as_of: { kind: "bad_request", meaning: "as_of is not an ISO 8601 instant with its offset; details name the field." },
  invalid_filter: { kind: "bad_request", meaning: "A list filter names a value the list does not know (an incident kind, status or severity); details name the field and the values it takes." },
  invalid_path: { kind: "bad_request", meaning: "The path has malformed percent-encoding." },
  invalid_otlp: { kind: "bad_request", meaning: "The OTLP body (POST /traces) cannot be read as an ExportTraceServiceRequest; details name the field." },
  unauthorized: { kind: "unauthorized", meaning: "No key or session, or a wrong, revoked or expired one." },
  forbidden: { kind: "forbidden", meaning: "The caller is known but not allowed: a viewer writing, a cross-site request with a session cookie." },
  missing_scope: { kind: "forbidden", meaning: "The API key lacks the scope (read, write, admin) the route needs." },
  not_found: { kind: "not_found", meaning: "No such thing in the caller's project, or no such route; the same answer whether it exists in another project or nowhere." },
  method_not_allowed: { kind: "method_not_allowed", meaning: "The route does not take this method; the Allow header lists those it does." },
  conflict: { kind: "conflict", meaning: "The request clashes with the current state (an id already taken in this project, a concurrent change)." },
  version_conflict: { kind: "conflict", meaning: "The memory changed since the version the edit was based on: read it again and retry." },
  not_archived: { kind: "conflict", meaning: "Only an archived memory can be deleted permanently: archive it first." },
  node_memory_full: { kind: "conflict", meaning: "The node memory holds its maximum of messages: clear it first." },
  retention_run_in_progress: { kind: "conflict", meaning: "This retention rule is running right now (on this instance or another one); its run will be in the audit log." },
  eval_run_in_progress: { kind: "conflict", meaning: "This eval set is being run right now (on this instance or another one): wait for that run, then start yours." },
  chat_not_configured: { kind: "configuration", meaning: "What was asked needs a chat model (MEMSCOPE_CHAT_BASE_URL and MEMSCOPE_CHAT_MODEL) and the server has none." },
  erasure_in_progress: { kind: "conflict", meaning: "This end user's data is being erased (or an erasure was interrupted: run it again); writes for the user are refused until it ends." },
  eval_set_name_taken: { kind: "conflict", meaning: "An eval set of this name exists in the project already: names identify sets (the CLI's --set)." },
  incident_scan_in_progress: { kind: "conflict", meaning: "An incident scan of the same scope (the conversation, or the whole project) is running: details name the job; follow it with GET /incidents/scan/{id}." },
  project_not_empty: { kind: "conflict", meaning: "The demo data loads only into an empty project (no conversations, no memories): details name what it holds." },
  write_conflict: { kind: "conflict", meaning: "Concurrent writes kept changing the same record: retry the request." },
  embeddings_misconfigured: { kind: "configuration", meaning: "The embeddings settings cannot work (endpoint, model or dimensions): fix the server's configuration." },
  dify_database_not_configured: { kind: "configuration", meaning: "Importing from Dify's database needs MEMSCOPE_DIFY_DATABASE_URL on the server." },
  langgraph_database_not_configured: { kind: "configuration", meaning: "Importing from LangGraph's store database needs MEMSCOPE_LANGGRAPH_DATABASE_URL on the server." },
  langgraph_database_unreachable: { kind: "configuration", meaning: "The database named by MEMSCOPE_LANGGRAPH_DATABASE_URL does not answer, refuses the login, or has no store table." },
  dify_database_unreachable: { kind: "configuration", meaning: "The Dify database named by MEMSCOPE_DIFY_DATABASE_URL does not answer or refuses the login." },
  import_limit_exceeded: { kind: "too_large", meaning: "An uploaded import file is over one of the import limits (unpacked size, entries, entry size, record size, nesting depth, records, SQLite value size, parse time or memory): details[0].field names the limit, its message the value." },
  payload_too_large: { kind: "too_large", meaning: "The body is over the route's size limit (named in details)." },
  unsupported_media_type: { kind: "unsupported_media_type", meaning: "The body's Content-Type is not the one the route takes (JSON)." },
  validation_error: { kind: "validation", meaning: "A field of the body, query or path is invalid; details name each field and what is wrong." },
  unprocessable: { kind: "validation", meaning: "The request is well-formed but asks for what the rules forbid; details say which rule." },
  confirmation_required: { kind: "validation", meaning: "A destructive action needs its explicit confirmation (confirm=true)." },
  parent_not_found: { kind: "validation", meaning: "A turn's parent_message_id is neither stored in this conversation nor in the same batch." },
  invalid_import_file: { kind: "validation", meaning: "The import file cannot be read as its format; details name the record and field." },
  invalid_eval_file: { kind: "validation", meaning: "An eval case file (JSONL, CSV, LongMemEval, LoCoMo) has bad records; details name each record and field." },
  unknown_import_format: { kind: "validation", meaning: "The import file's format was not recognized: give format." },
  rate_limited: { kind: "rate_limited", meaning: "Too many requests from this key or address; the Retry-After header says when to try again." },
  internal: { kind: "internal", meaning: "A fault of the server, not of the request; its log has the details." },
  provider_error: { kind: "provider", meaning: "The configured embeddings or chat endpoint failed or answered something unusable." },
  database_unavailable: { kind: "unavailable", meaning: "The database is not reachable; /api/v1/ready says why." },
  database_busy: { kind: "unavailable", meaning: "Concurrent requests kept colliding in the database (a deadlock or serialization failure, retried a few times already): nothing was written; retry after the Retry-After header's seconds." },
} as const satisfies Record<string, { kind: ErrorKind; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes of one kind: what a typed error of that kind may carry. */
export type CodeOf<K extends ErrorKind> = { [C in ErrorCode]: (typeof ERROR_CODES)[C]["kind"] extends K ? C : never }[ErrorCode];

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];
