import { ApiError } from "../api/api-error";

// A request that carried credentials but may not go on: wrong origin (403), rate
// limited (429 with Retry-After), a project it cannot see (404: it does not exist for it).
export class AccessError extends ApiError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(status, code, message, []);
    this.name = "AccessError";
  }
}
