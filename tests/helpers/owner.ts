// The env that makes a server start with an owner account, and that owner signed in:
// `post` sends as the owner (optionally for another project, as the project switcher does).

export const OWNER_PASSWORD = "correct horse battery";
export const OWNER_ENV = { MEMSCOPE_KEY_RATE_LIMIT: "off", MEMSCOPE_ADMIN_EMAIL: "owner@example.com", MEMSCOPE_ADMIN_PASSWORD: OWNER_PASSWORD };

export type Owner = {
  cookie: string;
  /** POST /api/v1<path> as the owner; the JSON answer. */
  post(path: string, body: unknown, project?: string): Promise<any>;
  /** A project API key (secret) with these scopes, of the owner's project or `project`. */
  key(name: string, scopes: string[], project?: string): Promise<string>;
};

export async function signInOwner(baseUrl: string): Promise<Owner> {
  const signIn = await fetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email: OWNER_ENV.MEMSCOPE_ADMIN_EMAIL, password: OWNER_PASSWORD }),
  });
  if (!signIn.ok) throw new Error(`owner sign-in: ${signIn.status} ${await signIn.text()}`);
  const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const post = (path: string, body: unknown, project?: string) =>
    fetch(`${baseUrl}/api/v1${path}`, {
      method: "POST",
      headers: { cookie, origin: baseUrl, "content-type": "application/json", ...(project ? { "x-memscope-project": project } : {}) },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  return { cookie, post, key: async (name, scopes, project) => (await post("/project/keys", { name, scopes }, project)).key };
}
