// Errors the API answers with a 4xx and a JSON body {error: {code, message, details}}.

export type ErrorDetail = { field?: string; message: string; [k: string]: unknown };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const notFound = (what: string, id: string) =>
  new ApiError(404, "not_found", `${what} ${id} does not exist`, [{ field: "id", message: "unknown id", id }]);

export const unprocessable = (message: string, details: ErrorDetail[] = []) =>
  new ApiError(422, "unprocessable", message, details);

export const conflict = (message: string, details: ErrorDetail[] = []) =>
  new ApiError(409, "conflict", message, details);
