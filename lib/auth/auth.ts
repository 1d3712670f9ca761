import "server-only";
import { authSingleton } from "./auth-singleton";
import type { Auth } from "./create-auth";

export function getAuth(): Promise<Auth> {
  return authSingleton();
}
